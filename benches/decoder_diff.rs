//! Randomized differential of gfxsim's gfx1100 decoder against LLVM's
//! (issue #4 point 2): seeded random instruction words, biased so that every
//! encoding family's fixed prefix appears, are decoded and printed by
//! `isa::decode` + `isa::disasm` and by LLVM 19's disassembler, and every
//! disagreement is counted and (the first few per category) shown.
//!
//! How LLVM's answer is matched to each test: the tests are laid out in one
//! byte stream, each (its fixed dwords plus one random literal dword)
//! followed by `s_code_end` sentinel dwords, enough that a longer decode of
//! leftover bytes cannot reach the next test. The stream is wrapped into an
//! ELF `.text` by `llvm-objcopy-19` and disassembled by `llvm-objdump-19`,
//! which prints every instruction with its address and the input dwords it
//! consumed (an invalid encoding is a `.long` over one dword): exact offsets
//! and lengths. (`llvm-mc-19 -disassemble` was tried first: it prints LLVM's
//! re-encoded bytes, not the consumed ones, so tests could not be located.)
//! A test at whose first byte no LLVM decode starts is counted as lost.
//!
//! Run: `cargo bench --bench decoder_diff -- [--seed S] [--count N]`
//! (default 100000 tests). It is a report: it exits 0 whatever it finds.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use aqueduct_gfxsim::isa::decode::decode;
use aqueduct_gfxsim::isa::disasm::disassemble;

/// `s_code_end`: the sentinel dword between tests.
const SENTINEL: u32 = 0xBF9F_0000;
/// Sentinel dwords after each test: the longest gfx11 encoding (MIMG NSA)
/// is 5 dwords, so leftover bytes can swallow at most 4 of them.
const SENTINELS: usize = 5;
/// Tests per llvm-mc invocation.
const BATCH: usize = 5000;
/// Disagreements shown per category.
const SHOWN: usize = 20;

/// One encoding family: the bits fixed by its format (`value` under
/// `mask`), its fixed length in dwords, and an optional operand bias.
struct Family {
    name: &'static str,
    mask: u32,
    value: u32,
    dwords: usize,
    bias: Bias,
}

/// Extra fixing of operand fields, so rare forms (literal, DPP, SDWA-less
/// DPP8) appear often enough to be tested.
#[derive(Clone, Copy)]
enum Bias {
    None,
    /// Set the 9-bit src0 field at bits 8:0 of dword 0 to one of these.
    Src0(&'static [u32]),
    /// Set the 9-bit src0 field at bits 8:0 of dword 1 (VOP3/VOP3P) to one of these.
    Src0Hi(&'static [u32]),
}

const SPECIAL_SRC: &[u32] = &[0xFF, 0xFA, 0xE9]; // literal, DPP16, DPP8

const FAMILIES: &[Family] = &[
    fam("sop2", 0xC000_0000, 0x8000_0000, 1, Bias::None),
    fam("sopk", 0xF000_0000, 0xB000_0000, 1, Bias::None),
    fam("sop1", 0xFF80_0000, 0xBE80_0000, 1, Bias::None),
    fam("sopc", 0xFF80_0000, 0xBF00_0000, 1, Bias::None),
    fam("sopp", 0xFF80_0000, 0xBF80_0000, 1, Bias::None),
    fam("vop2", 0x8000_0000, 0x0000_0000, 1, Bias::None),
    fam(
        "vop2_special",
        0x8000_0000,
        0x0000_0000,
        1,
        Bias::Src0(SPECIAL_SRC),
    ),
    fam("vop1", 0xFE00_0000, 0x7E00_0000, 1, Bias::None),
    fam(
        "vop1_special",
        0xFE00_0000,
        0x7E00_0000,
        1,
        Bias::Src0(SPECIAL_SRC),
    ),
    fam("vopc", 0xFE00_0000, 0x7C00_0000, 1, Bias::None),
    fam(
        "vopc_special",
        0xFE00_0000,
        0x7C00_0000,
        1,
        Bias::Src0(SPECIAL_SRC),
    ),
    fam("vop3", 0xFC00_0000, 0xD400_0000, 2, Bias::None),
    fam(
        "vop3_special",
        0xFC00_0000,
        0xD400_0000,
        2,
        Bias::Src0Hi(SPECIAL_SRC),
    ),
    fam("vop3p", 0xFF00_0000, 0xCC00_0000, 2, Bias::None),
    fam(
        "vop3p_special",
        0xFF00_0000,
        0xCC00_0000,
        2,
        Bias::Src0Hi(SPECIAL_SRC),
    ),
    fam("vinterp", 0xFF00_0000, 0xCD00_0000, 2, Bias::None),
    fam("ldsdir", 0xFF00_0000, 0xCE00_0000, 1, Bias::None),
    fam("vopd", 0xFC00_0000, 0xC800_0000, 2, Bias::None),
    fam("smem", 0xFC00_0000, 0xF400_0000, 2, Bias::None),
    fam("ds", 0xFC00_0000, 0xD800_0000, 2, Bias::None),
    fam("flat", 0xFC00_0000, 0xDC00_0000, 2, Bias::None),
    fam("mubuf", 0xFC00_0000, 0xE000_0000, 2, Bias::None),
    fam("mtbuf", 0xFC00_0000, 0xE800_0000, 2, Bias::None),
    fam("mimg", 0xFC00_0000, 0xF000_0000, 2, Bias::None),
    fam("exp", 0xFC00_0000, 0xF800_0000, 2, Bias::None),
    fam("raw", 0, 0, 1, Bias::None),
];

const fn fam(name: &'static str, mask: u32, value: u32, dwords: usize, bias: Bias) -> Family {
    Family {
        name,
        mask,
        value,
        dwords,
        bias,
    }
}

/// splitmix64: small, seedable, good enough for test words.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// One generated test: its family and words (fixed dwords + one literal).
struct Test {
    family: usize,
    words: Vec<u32>,
}

fn generate(rng: &mut Rng, count: usize) -> Vec<Test> {
    (0..count)
        .map(|_| {
            let family = rng.below(FAMILIES.len());
            let f = &FAMILIES[family];
            let mut words: Vec<u32> = (0..=f.dwords).map(|_| rng.next_u32()).collect();
            words[0] = (words[0] & !f.mask) | f.value;
            match f.bias {
                Bias::None => {}
                Bias::Src0(set) => words[0] = (words[0] & !0x1FF) | set[rng.below(set.len())],
                Bias::Src0Hi(set) => words[1] = (words[1] & !0x1FF) | set[rng.below(set.len())],
            }
            Test { family, words }
        })
        .collect()
}

/// What one decoder made of one test.
#[derive(Clone, Debug, PartialEq)]
enum Verdict {
    Valid { text: String, dwords: usize },
    Invalid,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn ours(test: &Test) -> Verdict {
    let mut words = test.words.clone();
    words.extend(std::iter::repeat_n(SENTINEL, SENTINELS));
    match decode(&words) {
        Ok(inst) => Verdict::Valid {
            text: collapse(&disassemble(&inst)),
            dwords: inst.len as usize,
        },
        Err(_) => Verdict::Invalid,
    }
}

/// LLVM's verdict on every test of a batch (`None` where no LLVM decode
/// starts at the test's first byte), or why none could be had.
fn llvm(tests: &[Test], dir: &std::path::Path) -> Result<Vec<Option<Verdict>>, String> {
    let bin = dir.join("stream.bin");
    let obj = dir.join("stream.o");
    let mut stream: Vec<u8> = Vec::new();
    let mut test_starts = Vec::new();
    for t in tests {
        test_starts.push(stream.len());
        stream.extend(t.words.iter().flat_map(|w| w.to_le_bytes()));
        stream.extend(std::iter::repeat_n(SENTINEL.to_le_bytes(), SENTINELS).flatten());
    }
    std::fs::write(&bin, &stream).map_err(|e| format!("{}: {e}", bin.display()))?;
    let wrap = Command::new("llvm-objcopy-19")
        .args([
            "-I",
            "binary",
            "-O",
            "elf64-x86-64",
            "--rename-section=.data=.text,code",
        ])
        .arg(&bin)
        .arg(&obj)
        .output()
        .map_err(|e| format!("llvm-objcopy-19: {e}"))?;
    if !wrap.status.success() {
        return Err(format!(
            "llvm-objcopy-19: {}",
            String::from_utf8_lossy(&wrap.stderr)
        ));
    }
    let out = Command::new("llvm-objdump-19")
        .args(["-d", "--triple=amdgcn-amd-amdhsa", "--mcpu=gfx1100"])
        .arg(&obj)
        .output()
        .map_err(|e| format!("llvm-objdump-19: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "llvm-objdump-19: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // Every instruction line is `TEXT // ADDRESS: WORD WORD ...` (an invalid
    // encoding prints as `.long 0x...` over one dword).
    let mut at_offset: BTreeMap<usize, Verdict> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((text, tail)) = line.rsplit_once("//") else {
            continue;
        };
        let Some((addr, words)) = tail.split_once(':') else {
            continue;
        };
        let Ok(addr) = usize::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        // LLVM may append `; Warning: ...` (e.g. a misaligned register tuple).
        let words = words.split(';').next().unwrap_or_default();
        let dwords = words
            .split_whitespace()
            .take_while(|w| !w.starts_with('<'))
            .count();
        let text = text.trim();
        let verdict = if text.starts_with(".long") {
            Verdict::Invalid
        } else {
            // Branch targets are annotated ` <symbol+0x..>`: not instruction text.
            let text = match text.rfind(" <") {
                Some(i) if text.ends_with('>') => &text[..i],
                _ => text,
            };
            Verdict::Valid {
                text: collapse(text),
                dwords,
            }
        };
        at_offset.insert(addr, verdict);
    }
    Ok(test_starts
        .iter()
        .map(|s| at_offset.get(s).cloned())
        .collect())
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Agree,
    BothInvalid,
    OursRejects,
    LlvmRejects,
    TextMismatch,
    LengthMismatch,
}

const OUTCOMES: [(Outcome, &str); 6] = [
    (Outcome::Agree, "agree"),
    (Outcome::BothInvalid, "both-invalid"),
    (Outcome::OursRejects, "llvm-valid/ours-rejects"),
    (Outcome::LlvmRejects, "ours-accepts/llvm-invalid"),
    (Outcome::TextMismatch, "text-mismatch"),
    (Outcome::LengthMismatch, "length-mismatch"),
];

fn classify(ours: &Verdict, llvm: &Verdict) -> Outcome {
    match (ours, llvm) {
        (Verdict::Invalid, Verdict::Invalid) => Outcome::BothInvalid,
        (Verdict::Invalid, Verdict::Valid { .. }) => Outcome::OursRejects,
        (Verdict::Valid { .. }, Verdict::Invalid) => Outcome::LlvmRejects,
        (
            Verdict::Valid {
                text: a,
                dwords: la,
            },
            Verdict::Valid {
                text: b,
                dwords: lb,
            },
        ) => {
            if a != b {
                Outcome::TextMismatch
            } else if la != lb {
                Outcome::LengthMismatch
            } else {
                Outcome::Agree
            }
        }
    }
}

fn show(v: &Verdict) -> String {
    match v {
        Verdict::Valid { text, dwords } => format!("{text}  [{dwords} dw]"),
        Verdict::Invalid => "<invalid>".to_string(),
    }
}

fn parse_args() -> (u64, usize) {
    let (mut seed, mut count) = (1u64, 100_000usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).unwrap_or(seed),
            "--count" => count = args.next().and_then(|v| v.parse().ok()).unwrap_or(count),
            _ => {} // `cargo bench` passes `--bench`; ignore what is not ours.
        }
    }
    (seed, count)
}

fn main() {
    let (seed, count) = parse_args();
    if Command::new("llvm-objdump-19")
        .arg("--version")
        .output()
        .is_err()
    {
        println!(
            "decoder_diff: skipped, llvm-objdump-19 not installed (apt-get install -y llvm-19)"
        );
        return;
    }
    let mut rng = Rng(seed);
    let tests = generate(&mut rng, count);
    let dir = std::env::temp_dir().join(format!("decoder_diff_{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        println!("decoder_diff: {}: {e}", dir.display());
        return;
    }
    let mut per_family: Vec<BTreeMap<Outcome, usize>> = vec![BTreeMap::new(); FAMILIES.len()];
    let mut examples: BTreeMap<Outcome, Vec<String>> = BTreeMap::new();
    let mut lost = 0usize;
    for batch in tests.chunks(BATCH) {
        let theirs = match llvm(batch, &dir) {
            Ok(v) => v,
            Err(e) => {
                println!("decoder_diff: batch of {} skipped: {e}", batch.len());
                lost += batch.len();
                continue;
            }
        };
        for (t, llvm_v) in batch.iter().zip(&theirs) {
            let Some(llvm_v) = llvm_v else {
                lost += 1;
                continue;
            };
            let ours_v = ours(t);
            let outcome = classify(&ours_v, llvm_v);
            *per_family[t.family].entry(outcome).or_default() += 1;
            let shown = examples.entry(outcome).or_default();
            if !matches!(outcome, Outcome::Agree | Outcome::BothInvalid) && shown.len() < SHOWN {
                let words: Vec<String> = t.words.iter().map(|w| format!("{w:08x}")).collect();
                shown.push(format!(
                    "{:<14} {}\n      ours {}\n      llvm {}",
                    FAMILIES[t.family].name,
                    words.join(" "),
                    show(&ours_v),
                    show(llvm_v)
                ));
            }
        }
    }
    if std::env::var_os("DECODER_DIFF_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }

    let mut header = format!("{:<14}", "family");
    for (_, name) in OUTCOMES {
        let _ = write!(header, " {name:>12}");
    }
    println!("{header}");
    let mut totals: BTreeMap<Outcome, usize> = BTreeMap::new();
    for (f, counts) in FAMILIES.iter().zip(&per_family) {
        let mut row = format!("{:<14}", f.name);
        for (o, _) in OUTCOMES {
            let n = counts.get(&o).copied().unwrap_or(0);
            *totals.entry(o).or_default() += n;
            let _ = write!(row, " {n:>12}");
        }
        println!("{row}");
    }
    for (o, name) in OUTCOMES {
        if matches!(o, Outcome::Agree | Outcome::BothInvalid) {
            continue;
        }
        let shown = examples.get(&o).map(Vec::as_slice).unwrap_or(&[]);
        println!(
            "\n== {name}: {} (first {})",
            totals.get(&o).unwrap_or(&0),
            shown.len()
        );
        for e in shown {
            println!("  {e}");
        }
    }
    let n = |o| totals.get(&o).copied().unwrap_or(0);
    let compared: usize = totals.values().sum();
    println!(
        "\ndecoder_diff summary: seed {seed}, {compared} compared ({lost} lost): agree {}, both-invalid {}, \
         llvm-valid/ours-rejects {}, ours-accepts/llvm-invalid {}, text-mismatch {}, length-mismatch {}",
        n(Outcome::Agree),
        n(Outcome::BothInvalid),
        n(Outcome::OursRejects),
        n(Outcome::LlvmRejects),
        n(Outcome::TextMismatch),
        n(Outcome::LengthMismatch),
    );
}
