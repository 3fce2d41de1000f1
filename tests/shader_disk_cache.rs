//! The on-disk cache of run-time compiled WGSL (`AQUEDUCT_SHADER_CACHE`),
//! seen from processes: each test runs this binary again as child processes
//! (the ignored `child_process` below) with the cache variables set for
//! them alone, so no test changes its own environment and none writes to
//! the user's cache. A child prints one `disk-cache-counts` line per device
//! it used; the tests read the compile and hit counters from them. The
//! children compile through LLVM (`AQUEDUCT_SHADER_BASELINE=off`): the
//! baseline compiler's objects are not cached on disk.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use aqueduct::shader_disk_cache::SHADER_CACHE_ENV;
use aqueduct::*;
use aqueduct_test_harness::facade::*;

/// The variable naming the scenario a child process runs.
const SCENARIO_ENV: &str = "AQUEDUCT_DISK_CACHE_TEST_SCENARIO";
const COUNTS_PREFIX: &str = "disk-cache-counts";

const SQUARE_WGSL: &str = "
// tests/shader_disk_cache.rs: square
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    data[gid.x] = data[gid.x] * data[gid.x] + 1u;
}
";

/// Two entry points and an override without a default: each pipeline is
/// its own variant.
const VARIANTS_WGSL: &str = "
// tests/shader_disk_cache.rs: variants
override FACTOR: u32;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    data[gid.x] = data[gid.x] * FACTOR;
}
@compute @workgroup_size(64)
fn shift(@builtin(global_invocation_id) gid: vec3<u32>) {
    data[gid.x] = data[gid.x] + FACTOR;
}
";

fn llvm_installed() -> bool {
    let found = aqueduct_shaderc::Toolchain::available();
    if !found {
        eprintln!("clang-19/ld.lld-19 not installed: the shader cache is not tested");
    }
    found
}

/// A fresh directory of this test's own under the temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "aqueduct-shader-cache-test-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// This binary, set to run `scenario` as `child_process` with `env`.
fn child_command(scenario: &str, env: &[(&str, &Path)]) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "child_process",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(SCENARIO_ENV, scenario)
    .env(aqueduct::wgsl::SHADER_BASELINE_ENV, "off")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd
}

/// (compiles, disk hits) per device, from a finished child.
fn counts(output: Output) -> Vec<(u64, u64)> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let parsed: Vec<(u64, u64)> = stdout
        .lines()
        // The harness's `test child_process ... ` may begin the line.
        .filter_map(|l| Some(l.split_once(COUNTS_PREFIX)?.1))
        .map(|l| {
            let mut numbers = l.split_whitespace().map(|n| n.parse::<u64>().unwrap());
            (numbers.next().unwrap(), numbers.next().unwrap())
        })
        .collect();
    assert!(!parsed.is_empty(), "the child printed no counts:\n{stdout}");
    parsed
}

/// Run `scenario` in a child whose cache directory is `cache`.
fn run_child(scenario: &str, cache: &Path) -> Vec<(u64, u64)> {
    counts(
        child_command(scenario, &[(SHADER_CACHE_ENV, cache)])
            .output()
            .unwrap(),
    )
}

/// The files in `dir` (recursively), as paths relative to it.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The one entry in `dir` (a `.shader` file and nothing else).
fn only_entry(dir: &Path) -> PathBuf {
    let found = files(dir);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].extension().unwrap(), "shader", "{found:?}");
    dir.join(&found[0])
}

#[test]
fn a_second_device_and_a_second_process_hit_the_disk_cache() {
    if !llvm_installed() {
        return;
    }
    let cache = scratch("hit");
    // The first device compiles and stores; the second loads it.
    assert_eq!(run_child("square", &cache), [(1, 0), (1, 1)]);
    only_entry(&cache);
    // Another process: both devices load it.
    assert_eq!(run_child("square", &cache), [(1, 1), (1, 1)]);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn other_constants_or_entry_points_miss() {
    if !llvm_installed() {
        return;
    }
    let cache = scratch("variants");
    // (scale, 2), (scale, 3) and (shift, 2): three keys, three compiles.
    assert_eq!(run_child("variants", &cache), [(3, 0)]);
    assert_eq!(files(&cache).len(), 3);
    assert_eq!(run_child("variants", &cache), [(3, 3)]);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_damaged_entry_is_recompiled_and_replaced() {
    if !llvm_installed() {
        return;
    }
    let cache = scratch("damaged");
    assert_eq!(run_child("square", &cache), [(1, 0), (1, 1)]);
    let entry = only_entry(&cache);
    let sound = std::fs::read(&entry).unwrap();
    let mut flipped = sound.clone();
    flipped[sound.len() / 2] ^= 0x40;
    let damaged: [(&str, &[u8]); 3] = [
        ("truncated", &sound[..sound.len() / 2]),
        ("a flipped bit", &flipped),
        ("empty", &[]),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&entry, bytes).unwrap();
        // The first device finds the damage and compiles; the second loads
        // the entry the first one wrote back.
        assert_eq!(run_child("square", &cache), [(1, 0), (1, 1)], "{what}");
        assert_eq!(std::fs::read(&entry).unwrap(), sound, "{what}");
    }
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn off_never_writes_and_the_default_follows_xdg_cache_home() {
    if !llvm_installed() {
        return;
    }
    let root = scratch("off");
    let home = root.join("home");
    let xdg = root.join("xdg");
    // gfxsim's translation cache also follows XDG_CACHE_HOME; it is off
    // here, so only the shader cache could write (AQUEDUCT_SIM_JIT=always
    // in the environment would translate the kernel).
    let no_jit_cache = (aqueduct_isa::JIT_CACHE_ENV, Path::new("off"));
    for setting in ["off", "0"] {
        let output = child_command(
            "square",
            &[
                (SHADER_CACHE_ENV, Path::new(setting)),
                ("HOME", &home),
                ("XDG_CACHE_HOME", &xdg),
                no_jit_cache,
            ],
        )
        .output()
        .unwrap();
        assert_eq!(counts(output), [(1, 0), (1, 0)], "{setting}");
        assert_eq!(files(&root), Vec::<PathBuf>::new(), "{setting}");
    }
    // Unset: under XDG_CACHE_HOME.
    let output = child_command(
        "square",
        &[("HOME", &home), ("XDG_CACHE_HOME", &xdg), no_jit_cache],
    )
    .env_remove(SHADER_CACHE_ENV)
    .output()
    .unwrap();
    assert_eq!(counts(output), [(1, 0), (1, 1)]);
    only_entry(&xdg.join("aqueduct/shaders"));
    assert!(!home.exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_unusable_location_compiles_uncached() {
    if !llvm_installed() {
        return;
    }
    let root = scratch("unusable");
    let file = root.join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    // A directory cannot be made under a regular file.
    assert_eq!(run_child("square", &file.join("cache")), [(1, 0), (1, 0)]);
    assert_eq!(files(&root), [PathBuf::from("a-file")]);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn processes_compiling_one_key_at_once_all_succeed() {
    if !llvm_installed() {
        return;
    }
    let cache = scratch("concurrent");
    let children: Vec<Child> = (0..3)
        .map(|_| {
            child_command("square", &[(SHADER_CACHE_ENV, &cache)])
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let found = counts(child.wait_with_output().unwrap());
        // Each child's first device compiled or loaded (another child may
        // have stored first); its second device loaded.
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].0, 1);
        assert_eq!(found[1], (1, 1));
    }
    // One whole entry, no temporary file left.
    let entry = only_entry(&cache);
    assert_eq!(run_child("square", &cache), [(1, 1), (1, 1)]);
    assert!(entry.exists());
    let _ = std::fs::remove_dir_all(&cache);
}

/// Run `entry` of `module` with `constants` over 128 words 0..128; the
/// words after.
fn dispatch(c: &Ctx, module: &ShaderModule, entry: &str, constants: &[(&str, f64)]) -> Vec<u32> {
    let pipeline = expect_valid(&c.device, || {
        c.device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label: None,
                layout: None,
                module,
                entry_point: Some(entry),
                compilation_options: PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: None,
            })
    });
    let words: Vec<u32> = (0..128).collect();
    let buffer = storage_init(&c.device, &words);
    let bg = bind_group(&c.device, &pipeline, 0, &[&buffer]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(2, 1, 1);
    }
    c.queue.submit([enc.finish()]);
    read_words(c, &buffer)
}

fn module(c: &Ctx, text: &'static str) -> ShaderModule {
    expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("disk_cache.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(text)),
        })
    })
}

fn print_counts(c: &Ctx) {
    println!(
        "{COUNTS_PREFIX} {} {}",
        c.device.wgsl_compiles(),
        c.device.wgsl_disk_cache_hits()
    );
}

/// Not a test of its own: the body of the child processes the tests above
/// start (it does nothing without their scenario variable).
#[test]
#[ignore = "run by the other tests of this file, as a child process"]
fn child_process() {
    let Ok(scenario) = std::env::var(SCENARIO_ENV) else {
        return;
    };
    match scenario.as_str() {
        // Two devices, each creating the module and running it: results
        // from a loaded entry must be those of a compiled one.
        "square" => {
            for _ in 0..2 {
                let c = ctx();
                let m = module(&c, SQUARE_WGSL);
                let want: Vec<u32> = (0..128u32).map(|w| w * w + 1).collect();
                assert_eq!(dispatch(&c, &m, "main", &[]), want);
                print_counts(&c);
            }
        }
        "variants" => {
            let c = ctx();
            let m = module(&c, VARIANTS_WGSL);
            let words = 0..128u32;
            let scale2: Vec<u32> = words.clone().map(|w| w * 2).collect();
            let scale3: Vec<u32> = words.clone().map(|w| w * 3).collect();
            let shift2: Vec<u32> = words.map(|w| w + 2).collect();
            assert_eq!(dispatch(&c, &m, "scale", &[("FACTOR", 2.0)]), scale2);
            assert_eq!(dispatch(&c, &m, "scale", &[("FACTOR", 3.0)]), scale3);
            assert_eq!(dispatch(&c, &m, "shift", &[("FACTOR", 2.0)]), shift2);
            print_counts(&c);
        }
        other => panic!("unknown scenario {other:?}"),
    }
}
