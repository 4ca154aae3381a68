//! PMPP chapter 3 image kernels (grayscale, blur, 3D indexing).
