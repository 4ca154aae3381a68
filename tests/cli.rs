//! The `ferrotile` command through its real binary, always on the CPU
//! emulator, on real files in a temporary folder: after every failing
//! command the folder is byte for byte what it was (inputs unchanged, no
//! output, no temporary file); every successful one writes the expected
//! pixels and nothing else. Images are tiny and of no tile-friendly size.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ferrotile::image::{cpu, HostImage};
use image::{DynamicImage, ImageBuffer};

const W: u32 = 37;
const H: u32 = 23;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The binary cargo built, or `$FERROTILE_CLI` where the tests run away from
/// the build tree (the GPU bundle's run.sh sets it to bundle/bin/ferrotile).
fn binary() -> PathBuf {
    std::env::var_os("FERROTILE_CLI").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ferrotile")), PathBuf::from)
}

fn ferrotile(dir: &Path, args: &[&str]) -> Output {
    Command::new(binary()).current_dir(dir).args(args).output().expect("the binary runs")
}

/// `ferrotile image --emulator ARGS` in `dir`.
fn image_cmd(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["image", "--emulator"];
    all.extend_from_slice(args);
    ferrotile(dir, &all)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[derive(Debug, PartialEq, Eq)]
enum Entry {
    File(Vec<u8>),
    Link(PathBuf),
    Folder,
}

/// Everything under `dir`: files with their bytes, links with their
/// targets, folders.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Entry> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let t = fs::symlink_metadata(&p).unwrap().file_type();
            if t.is_symlink() {
                out.insert(rel, Entry::Link(fs::read_link(&p).unwrap()));
            } else if t.is_dir() {
                out.insert(rel, Entry::Folder);
                walk(root, &p, out);
            } else {
                out.insert(rel, Entry::File(fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The names under `dir` (recursive, sorted).
fn names(dir: &Path) -> Vec<String> {
    snapshot(dir).into_keys().map(|p| p.to_string_lossy().into_owned()).collect()
}

/// Runs `ferrotile image ARGS`, which must fail with an error (not a panic)
/// and leave `dir` exactly as it was; returns stderr.
fn fails_cleanly(dir: &Path, args: &[&str]) -> String {
    let before = snapshot(dir);
    let out = image_cmd(dir, args);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "`{args:?}` succeeded; stderr: {err}");
    assert!(err.contains("error"), "`{args:?}`: no error message: {err}");
    assert!(!err.contains("panicked"), "`{args:?}` panicked: {err}");
    assert_eq!(snapshot(dir), before, "`{args:?}` changed the folder; stderr: {err}");
    err
}

/// Runs `ferrotile image ARGS`, which must succeed; returns stderr.
fn succeeds(dir: &Path, args: &[&str]) -> String {
    let out = image_cmd(dir, args);
    let err = text(&out.stderr);
    assert!(out.status.success(), "`{args:?}` failed: {err}");
    err
}

/// Seeded uniform bytes (`ferrotile::testing`'s generator).
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    ferrotile::testing::random_u8(n, seed)
}

fn rgb(seed: u64) -> DynamicImage {
    DynamicImage::ImageRgb8(ImageBuffer::from_raw(W, H, bytes((W * H * 3) as usize, seed)).unwrap())
}

fn rgba(seed: u64) -> DynamicImage {
    DynamicImage::ImageRgba8(ImageBuffer::from_raw(W, H, bytes((W * H * 4) as usize, seed)).unwrap())
}

fn luma_alpha(seed: u64) -> DynamicImage {
    DynamicImage::ImageLumaA8(ImageBuffer::from_raw(W, H, bytes((W * H * 2) as usize, seed)).unwrap())
}

fn rgb16(seed: u64) -> DynamicImage {
    let b = bytes((W * H * 6) as usize, seed);
    let v: Vec<u16> = b.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
    DynamicImage::ImageRgb16(ImageBuffer::from_raw(W, H, v).unwrap())
}

fn rgba16(seed: u64) -> DynamicImage {
    let b = bytes((W * H * 8) as usize, seed);
    let v: Vec<u16> = b.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
    DynamicImage::ImageRgba16(ImageBuffer::from_raw(W, H, v).unwrap())
}

/// Writes `img` as a PNG at `dir/name` (whatever the extension).
fn write_png(dir: &Path, name: &str, img: &DynamicImage) -> PathBuf {
    let p = dir.join(name);
    img.write_to(&mut fs::File::create(&p).unwrap(), image::ImageFormat::Png).unwrap();
    p
}

fn read(p: &Path) -> DynamicImage {
    image::ImageReader::open(p).unwrap().with_guessed_format().unwrap().decode().unwrap()
}

/// An 8-bit image as the library's HostImage, channels as stored.
fn host(img: &DynamicImage) -> HostImage {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (c, data) = match img.color() {
        image::ColorType::L8 => (1, img.as_bytes().to_vec()),
        image::ColorType::La8 => (2, img.as_bytes().to_vec()),
        image::ColorType::Rgb8 => (3, img.as_bytes().to_vec()),
        image::ColorType::Rgba8 => (4, img.as_bytes().to_vec()),
        c => panic!("not an 8-bit image: {c:?}"),
    };
    HostImage::new(w, h, c, data).unwrap()
}

/// `img`'s colour as RGB and its alpha, per pixel.
fn split_alpha(img: &HostImage) -> (HostImage, Vec<u8>) {
    let c = img.channels();
    assert!(c == 2 || c == 4);
    let colour = img.data().chunks_exact(c).flat_map(|p| if c == 4 { [p[0], p[1], p[2]] } else { [p[0]; 3] }).collect();
    let alpha = img.data().chunks_exact(c).map(|p| p[c - 1]).collect();
    (HostImage::new(img.width(), img.height(), 3, colour).unwrap(), alpha)
}

fn with_alpha(gray: &HostImage, alpha: &[u8]) -> HostImage {
    let data = gray.data().iter().zip(alpha).flat_map(|(&l, &a)| [l, a]).collect();
    HostImage::new(gray.width(), gray.height(), 2, data).unwrap()
}

// ---------------------------------------------------------------------------
// 1. Nothing is written before the input is decoded and the output format
//    checked; a failed save leaves no file (temporary file + rename).
// ---------------------------------------------------------------------------

#[test]
fn unsupported_output_format_equal_to_the_input_leaves_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // PNG bytes under a .tiff name: it decodes, but .tiff cannot be written.
    write_png(dir.path(), "pic.tiff", &rgb(1));
    let err = fails_cleanly(dir.path(), &["blur", "pic.tiff", "pic.tiff"]);
    assert!(err.contains("pic.tiff") && err.contains("unsupported output format"), "{err}");
}

#[test]
fn unsupported_output_format_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "in.png", &rgb(2));
    for out in ["out.tiff", "out.bmp", "out.PNGX"] {
        let err = fails_cleanly(dir.path(), &["blur", "in.png", out]);
        assert!(err.contains(out), "{err}");
    }
    // Also for the built-in picture, and checked before it is built.
    fails_cleanly(dir.path(), &["gray", "builtin", "out.gif"]);
}

#[test]
fn failed_encode_leaves_no_file_and_keeps_an_existing_output() {
    let dir = tempfile::tempdir().unwrap();
    // JPEG stops at 65 535 pixels a side: the encoder fails after the blur.
    let wide = DynamicImage::ImageLuma8(ImageBuffer::from_raw(70_000, 1, bytes(70_000, 3)).unwrap());
    write_png(dir.path(), "wide.png", &wide);
    let err = fails_cleanly(dir.path(), &["blur", "wide.png", "wide.jpg"]);
    assert!(err.contains("wide.jpg"), "{err}");
    fs::write(dir.path().join("old.jpg"), b"an earlier result").unwrap();
    fails_cleanly(dir.path(), &["blur", "wide.png", "old.jpg"]);
}

#[test]
fn undecodable_input_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut truncated = Vec::new();
    rgb(4).write_to(&mut std::io::Cursor::new(&mut truncated), image::ImageFormat::Png).unwrap();
    truncated.truncate(truncated.len() / 2);
    fs::write(dir.path().join("half.png"), &truncated).unwrap();
    fs::write(dir.path().join("noise.png"), bytes(500, 5)).unwrap();
    write_png(dir.path(), "keep.png", &rgb(6));
    for input in ["half.png", "noise.png", "missing.png"] {
        let err = fails_cleanly(dir.path(), &["blur", input, "out.png"]);
        assert!(err.contains(input), "{err}");
        fails_cleanly(dir.path(), &["gray", input, "keep.png"]);
    }
}

#[test]
fn successful_runs_write_the_expected_file_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let img = rgb(7);
    write_png(dir.path(), "in.png", &img);
    succeeds(dir.path(), &["blur", "-r", "2", "in.png", "out.png"]);
    assert_eq!(host(&read(&dir.path().join("out.png"))), cpu::blur(&host(&img), 2));
    // The default output, beside the input.
    succeeds(dir.path(), &["gray", "in.png"]);
    assert_eq!(host(&read(&dir.path().join("in-gray.png"))), cpu::rgb_to_gray(&host(&img)));
    // JPEG (lossy: the shape only).
    succeeds(dir.path(), &["gray-blur", "in.png", "out.JPG"]);
    let jpg = read(&dir.path().join("out.JPG"));
    assert_eq!((jpg.width(), jpg.height(), jpg.color()), (W, H, image::ColorType::L8));
    // No extension: PNG.
    succeeds(dir.path(), &["source", "in.png", "copy"]);
    assert_eq!(host(&read(&dir.path().join("copy"))), host(&img));
    // An existing output is replaced.
    succeeds(dir.path(), &["blur", "-r", "1", "in.png", "out.png"]);
    assert_eq!(host(&read(&dir.path().join("out.png"))), cpu::blur(&host(&img), 1));
    // The built-in picture.
    succeeds(dir.path(), &["source", "--size", "37x23"]);
    assert_eq!(host(&read(&dir.path().join("ferrotile-source.png"))), ferrotile::image::builtin_test_image(37, 23).unwrap());
    assert_eq!(names(dir.path()), ["copy", "ferrotile-source.png", "in-gray.png", "in.png", "out.JPG", "out.png"]);
}

#[cfg(unix)]
#[test]
fn new_outputs_get_the_usual_permissions_and_replaced_ones_keep_theirs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "in.png", &rgb(8));
    // What File::create gives a new file here (mode 0o666 less the umask).
    fs::File::create(dir.path().join("probe")).unwrap();
    let usual = fs::metadata(dir.path().join("probe")).unwrap().permissions().mode() & 0o777;
    succeeds(dir.path(), &["blur", "in.png", "out.png"]);
    assert_eq!(fs::metadata(dir.path().join("out.png")).unwrap().permissions().mode() & 0o777, usual);
    fs::set_permissions(dir.path().join("out.png"), fs::Permissions::from_mode(0o640)).unwrap();
    succeeds(dir.path(), &["gray", "in.png", "out.png"]);
    assert_eq!(fs::metadata(dir.path().join("out.png")).unwrap().permissions().mode() & 0o777, 0o640);
}

// ---------------------------------------------------------------------------
// 2. An output that is the input is refused (unless --in-place).
// ---------------------------------------------------------------------------

#[test]
fn output_that_is_the_input_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "in.png", &rgb(9));
    fs::hard_link(dir.path().join("in.png"), dir.path().join("hard.png")).unwrap();
    let up = format!("../{}/in.png", dir.path().file_name().unwrap().to_string_lossy());
    let mut spellings = vec!["in.png".to_string(), "./in.png".into(), up, "hard.png".into()];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("in.png", dir.path().join("link.png")).unwrap();
        spellings.push("link.png".into());
    }
    for out in &spellings {
        for op in ["blur", "gray", "source"] {
            let err = fails_cleanly(dir.path(), &[op, "in.png", out]);
            assert!(err.contains(out.as_str()) && err.contains("`in.png`") && err.contains("--in-place"), "{err}");
        }
    }
    // The same through the input's spellings.
    fails_cleanly(dir.path(), &["blur", "./hard.png", "in.png"]);
}

#[test]
fn output_that_is_a_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "in.png", &rgb(10));
    fs::create_dir(dir.path().join("sub.png")).unwrap();
    let err = fails_cleanly(dir.path(), &["blur", "in.png", "sub.png"]);
    assert!(err.contains("sub.png") && err.contains("folder"), "{err}");
    let err = fails_cleanly(dir.path(), &["blur", "in.png", "nowhere/out.png"]);
    assert!(err.contains("nowhere"), "{err}");
}

#[test]
fn in_place_replaces_the_input_through_a_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let img = rgb(11);
    let p = write_png(dir.path(), "in.png", &img);
    succeeds(dir.path(), &["--in-place", "blur", "in.png", "./in.png"]);
    let once = cpu::blur(&host(&img), 1);
    assert_eq!(host(&read(&p)), once);
    // Without OUTPUT: the input.
    succeeds(dir.path(), &["--in-place", "blur", "in.png"]);
    let twice = cpu::blur(&once, 1);
    assert_eq!(host(&read(&p)), twice);
    #[cfg(unix)]
    {
        // Through a symlink: the target is replaced, the link stays.
        std::os::unix::fs::symlink("in.png", dir.path().join("link.png")).unwrap();
        succeeds(dir.path(), &["--in-place", "blur", "in.png", "link.png"]);
        assert_eq!(host(&read(&p)), cpu::blur(&twice, 1));
        assert_eq!(fs::read_link(dir.path().join("link.png")).unwrap(), Path::new("in.png"));
    }
    // No temporary file is left behind.
    let want: &[&str] = if cfg!(unix) { &["in.png", "link.png"] } else { &["in.png"] };
    assert_eq!(names(dir.path()), want);
    // --in-place needs something to replace.
    let err = fails_cleanly(dir.path(), &["--in-place", "gray"]);
    assert!(err.contains("--in-place"), "{err}");
}

#[test]
fn folder_output_that_is_the_input_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("pics")).unwrap();
    write_png(&dir.path().join("pics"), "a.png", &rgb(12));
    write_png(&dir.path().join("pics"), "b.png", &rgba(13));
    for out in ["pics", "./pics/", "pics/."] {
        let err = fails_cleanly(dir.path(), &["gray", "pics", out]);
        assert!(err.contains(out) && err.contains("`pics`") && err.contains("--in-place"), "{err}");
    }
    // A file of another output folder that is an input, through a link.
    #[cfg(unix)]
    {
        fs::create_dir(dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink("../pics/a.png", dir.path().join("out/a.png")).unwrap();
        let before = fs::read(dir.path().join("pics/a.png")).unwrap();
        let out = image_cmd(dir.path(), &["gray", "pics", "out"]);
        assert!(!out.status.success());
        assert!(text(&out.stderr).contains("is the same file as the input"), "{}", text(&out.stderr));
        assert_eq!(fs::read(dir.path().join("pics/a.png")).unwrap(), before);
        assert_eq!(names(&dir.path().join("out")), ["a.png", "b.png"]);
    }
}

#[test]
fn folders_are_processed_file_by_file_through_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let pics = dir.path().join("pics");
    fs::create_dir(&pics).unwrap();
    let (a, b) = (rgb(14), rgba(15));
    write_png(&pics, "a.png", &a);
    write_png(&pics, "b.png", &b);
    fs::write(pics.join("notes.txt"), "not an image").unwrap();
    // The default output folder, beside the input.
    succeeds(dir.path(), &["gray", "pics"]);
    assert_eq!(names(&dir.path().join("pics-gray")), ["a.png", "b.png"]);
    assert_eq!(host(&read(&dir.path().join("pics-gray/a.png"))), cpu::rgb_to_gray(&host(&a)));
    // In place: the inputs replaced, nothing else left.
    succeeds(dir.path(), &["--in-place", "blur", "pics"]);
    assert_eq!(names(&pics), ["a.png", "b.png", "notes.txt"]);
    assert_eq!(host(&read(&pics.join("a.png"))), cpu::blur(&host(&a), 1));
    assert_eq!(host(&read(&pics.join("b.png"))), cpu::blur(&host(&b), 1));
    // An output folder that is a file.
    fs::write(dir.path().join("plain"), "a file").unwrap();
    let err = fails_cleanly(dir.path(), &["gray", "pics", "plain"]);
    assert!(err.contains("plain"), "{err}");
}

// ---------------------------------------------------------------------------
// 4. --size: zero and over the limit are errors naming --size.
// ---------------------------------------------------------------------------

#[test]
fn bad_built_in_sizes_are_errors_naming_size() {
    let dir = tempfile::tempdir().unwrap();
    for size in ["0x0", "0x23", "37x0", "100000x100000", "70000x70000", "1x4294967295", "37"] {
        let err = fails_cleanly(dir.path(), &["gray", "--size", size]);
        assert!(err.contains("--size"), "{size}: {err}");
    }
    succeeds(dir.path(), &["gray", "--size", "1x1"]);
    assert_eq!(host(&read(&dir.path().join("ferrotile-gray.png"))).data().len(), 1);
}

// ---------------------------------------------------------------------------
// 7. tour --filter that matches nothing.
// ---------------------------------------------------------------------------

#[test]
fn tour_filter_matching_nothing_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = ferrotile(dir.path(), &["tour", "--emulator", "--filter", "no_such_kernel"]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("`no_such_kernel` matches no kernel"), "{err}");
    for name in ["foundation", "transpose", "image", "sgemm", "vec_add", "blur_naive_rgb_r2", "sgemm_naive"] {
        assert!(err.contains(name), "{name} not listed: {err}");
    }
    // A family name keeps the family.
    let out = ferrotile(dir.path(), &["tour", "--emulator", "--filter", "foundation"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows = text(&out.stdout);
    assert!(rows.contains("copy (device to device)") && rows.contains("vec_add (PMPP"), "{rows}");
}

// ---------------------------------------------------------------------------
// 7b. The tour table: aligned columns, a legend for every note, a summary.
// ---------------------------------------------------------------------------

/// `ferrotile tour --emulator ARGS`, which must succeed; returns stdout.
fn tour_ok(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["tour", "--emulator"];
    all.extend_from_slice(args);
    let out = ferrotile(dir, &all);
    assert!(out.status.success(), "{all:?}: {}", text(&out.stderr));
    // Not a terminal: no progress bar, nothing on stderr.
    assert_eq!(text(&out.stderr), "", "{all:?}");
    text(&out.stdout)
}

#[test]
fn tour_table_is_aligned_explains_its_notes_and_sums_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = tour_ok(dir.path(), &["--filter", "transpose"]);
    let lines: Vec<&str> = out.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("kernel ")).expect("a header");
    let rows: Vec<&str> = lines[header + 1..].iter().take_while(|l| !l.is_empty()).copied().collect();
    assert!(rows.len() > 10, "{out}");
    // Every row has its `check` word where the header has it, and the
    // longest kernel name fits its column.
    let check = lines[header].find("check").unwrap();
    for r in &rows {
        assert!(r[check..].starts_with("pass"), "misaligned: {r:?}\n{out}");
        assert!(r.contains("transpose"), "{r}");
    }
    // No unexplained marks: each note used is in the legend.
    assert!(!out.contains(" *"), "{out}");
    for note in ["ceiling", "default"] {
        assert!(rows.iter().any(|r| r.trim_end().ends_with(note)), "no {note} row: {out}");
        assert!(out.lines().any(|l| l.trim_start().starts_with(note) && l.len() > 20), "{note} not in the legend: {out}");
    }
    // The emulator shows no ceiling ratio (its times are not a GPU's).
    assert!(!lines[header].contains('%'), "{out}");
    let summary = lines.last().unwrap();
    assert_eq!(*summary, format!("{n} kernel runs checked: {n} passed, 0 failed. Backend: CPU emulator (--emulator given).", n = rows.len()));
}

#[test]
fn tour_without_a_driver_says_why_it_runs_on_the_emulator() {
    let dir = tempfile::tempdir().unwrap();
    // Only meaningful where there is no CUDA driver (this test's machines).
    if Path::new("/dev/nvidia0").exists() {
        return;
    }
    let out = ferrotile(dir.path(), &["tour", "--filter", "vec_add"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).starts_with("note: no CUDA driver"), "{}", text(&out.stderr));
    let last = text(&out.stdout).lines().last().unwrap().to_owned();
    assert!(last.contains("Backend: CPU emulator (no CUDA driver"), "{last}");
}

#[test]
fn tour_json_is_one_document_with_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let out = tour_ok(dir.path(), &["--filter", "foundation", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["backend"], "emulator");
    assert_eq!(doc["scale"], "small");
    assert!(doc["device"].is_null());
    let rows = doc["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["kernel"].as_str().unwrap()).collect();
    assert_eq!(names, ["copy (device to device)", "vec_add (PMPP, 1 elem/thread)"]);
    assert_eq!(rows[0]["is_ceiling"], true);
    assert_eq!(rows[1]["ceiling_group"], rows[0]["ceiling_group"]);
    for r in rows {
        assert_eq!(r["passed"], true);
        assert!(r["time_ms"].as_f64().unwrap() > 0.0 && r["throughput"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["unit"], "GB/s");
        assert!(r["fraction_of_ceiling"].is_null(), "no ratio on the emulator: {r}");
    }
    assert_eq!(doc["summary"], serde_json::json!({ "kernels": 2, "passed": 2, "failed": 0 }));
    // A filter that matches nothing is an error in JSON mode too.
    let out = ferrotile(dir.path(), &["tour", "--emulator", "--json", "--filter", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--filter `nope` matches no kernel"));
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn tour_filter_runs_the_ceiling_its_kernels_are_compared_with() {
    let dir = tempfile::tempdir().unwrap();
    let out = tour_ok(dir.path(), &["--filter", "blur_fast_gray"]);
    let kernels: Vec<&str> = out.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(kernels.contains(&"image_copy_dtod") && kernels.contains(&"blur_fast_gray_r2"), "{out}");
    assert!(!kernels.contains(&"blur_naive_gray_r2"), "{out}");
}

// ---------------------------------------------------------------------------
// 8. Alpha is carried through; 16-bit input is reduced with a note.
// ---------------------------------------------------------------------------

#[test]
fn rgba_blur_blurs_four_channels() {
    let dir = tempfile::tempdir().unwrap();
    let img = rgba(16);
    write_png(dir.path(), "in.png", &img);
    for r in ["1", "3"] {
        let err = succeeds(dir.path(), &["blur", "-r", r, "in.png", "out.png"]);
        assert!(!err.contains("note:"), "{err}");
        let got = read(&dir.path().join("out.png"));
        assert_eq!(got.color(), image::ColorType::Rgba8);
        assert_eq!(host(&got), cpu::blur(&host(&img), r.parse().unwrap()));
    }
}

#[test]
fn rgba_gray_gives_gray_and_the_same_alpha() {
    let dir = tempfile::tempdir().unwrap();
    let img = rgba(17);
    write_png(dir.path(), "in.png", &img);
    let (colour, alpha) = split_alpha(&host(&img));
    let gray = with_alpha(&cpu::rgb_to_gray(&colour), &alpha);
    succeeds(dir.path(), &["gray", "in.png", "gray.png"]);
    let got = read(&dir.path().join("gray.png"));
    assert_eq!(got.color(), image::ColorType::La8);
    assert_eq!(host(&got), gray);
    succeeds(dir.path(), &["gray-blur", "-r", "2", "in.png", "soft.png"]);
    assert_eq!(host(&read(&dir.path().join("soft.png"))), cpu::blur(&gray, 2));
}

#[test]
fn gray_alpha_input_keeps_both_channels() {
    let dir = tempfile::tempdir().unwrap();
    let img = luma_alpha(18);
    write_png(dir.path(), "in.png", &img);
    succeeds(dir.path(), &["blur", "-r", "2", "in.png", "blur.png"]);
    let got = read(&dir.path().join("blur.png"));
    assert_eq!(got.color(), image::ColorType::La8);
    assert_eq!(host(&got), cpu::blur(&host(&img), 2));
    // Gray of gray is itself (21 + 72 + 7 = 100); alpha unchanged.
    succeeds(dir.path(), &["gray", "in.png", "gray.png"]);
    assert_eq!(host(&read(&dir.path().join("gray.png"))), host(&img));
}

#[test]
fn jpeg_output_drops_alpha_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "in.png", &rgba(19));
    let err = succeeds(dir.path(), &["blur", "in.png", "out.jpg"]);
    assert!(err.contains("note:") && err.contains("in.png") && err.contains("alpha dropped"), "{err}");
    let got = read(&dir.path().join("out.jpg"));
    assert_eq!((got.width(), got.height(), got.color()), (W, H, image::ColorType::Rgb8));
}

#[test]
fn sixteen_bit_input_is_reduced_to_eight_bits_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    for (name, img) in [("deep.png", rgb16(20)), ("deep-alpha.png", rgba16(21))] {
        write_png(dir.path(), name, &img);
        let eight = if img.color().has_alpha() { DynamicImage::ImageRgba8(img.to_rgba8()) } else { DynamicImage::ImageRgb8(img.to_rgb8()) };
        let err = succeeds(dir.path(), &["blur", name, "out.png"]);
        assert!(err.contains("note:") && err.contains(name) && err.contains("16-bit samples reduced to 8 bits"), "{err}");
        let got = read(&dir.path().join("out.png"));
        assert_eq!(got.color(), eight.color());
        assert_eq!(host(&got), cpu::blur(&host(&eight), 1));
    }
    // 8-bit input: no note.
    write_png(dir.path(), "flat.png", &rgb(22));
    let err = succeeds(dir.path(), &["blur", "flat.png", "out.png"]);
    assert!(!err.contains("note:"), "{err}");
}
