//! Offload bundles: the checked-in saxpy bundles (plain, zstd- and
//! zlib-compressed CCOB) must yield byte-identical copies of the checked-in
//! per-target code objects; selection follows the target-ID rules; broken
//! bundles are errors of the right kind.

use std::borrow::Cow;

use aqueduct_hsa::code_object::{
    Bundle, BundleError, CodeObject, CodeObjectError, IsaName, TruncatedPart, code_object_for_agent,
};
use aqueduct_test_support::repo::kernel as kernel_file;

const TARGETS: [&str; 3] = ["gfx1100", "gfx942", "gfx90a"];
const BUNDLES: [&str; 3] = ["saxpy.bundle", "saxpy.zstd.bundle", "saxpy.zlib.bundle"];

fn agent(name: &str) -> IsaName {
    IsaName::parse(name).unwrap()
}

#[test]
fn bundles_hold_the_checked_in_code_objects() {
    for file in BUNDLES {
        let bytes = kernel_file(&format!("bundles/{file}"));
        assert!(Bundle::is_bundle(&bytes), "{file}");
        let bundle = Bundle::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let ids: Vec<&str> = bundle.entries.iter().map(|e| e.triple.as_str()).collect();
        assert_eq!(
            ids,
            [
                "host-x86_64-unknown-linux-gnu-",
                "hipv4-amdgcn-amd-amdhsa--gfx1100",
                "hipv4-amdgcn-amd-amdhsa--gfx942",
                "hipv4-amdgcn-amd-amdhsa--gfx90a"
            ],
            "{file}"
        );
        assert!(bundle.entries[0].bytes.is_empty());
        assert_eq!(bundle.entries[0].isa(), None);
        for gfx in TARGETS {
            let expected = kernel_file(&format!("{gfx}/saxpy.co"));
            let selected = bundle.select(&agent(gfx)).unwrap();
            assert!(selected == expected.as_slice(), "{file}: {gfx} differs");
            let direct = code_object_for_agent(&bytes, &agent(gfx)).unwrap();
            assert!(*direct == *expected, "{file}: {gfx} differs");
            // Plain bundles are borrowed in place; compressed ones had to be decompressed.
            assert_eq!(
                matches!(direct, Cow::Borrowed(_)),
                file == "saxpy.bundle",
                "{file}"
            );
            let co = CodeObject::parse(&direct).unwrap();
            assert_eq!(co.isa().gfx, gfx);
            assert!(co.kernel("saxpy").is_some());
        }
        // Feature-qualified agents match the "any" entries.
        let sel = bundle.select(&agent("gfx90a:sramecc+:xnack+")).unwrap();
        assert!(sel == kernel_file("gfx90a/saxpy.co").as_slice());
    }
}

#[test]
fn compressed_bundle_headers() {
    // CCOB v2: magic, u16 version, u16 method (0 zlib, 1 zstd), u32 total size, u32 uncompressed size.
    let plain_len = kernel_file("bundles/saxpy.bundle").len() as u32;
    for (file, method) in [("saxpy.zstd.bundle", 1u16), ("saxpy.zlib.bundle", 0)] {
        let bytes = kernel_file(&format!("bundles/{file}"));
        assert_eq!(&bytes[..4], b"CCOB");
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 2);
        assert_eq!(u16::from_le_bytes([bytes[6], bytes[7]]), method);
        assert_eq!(
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
            bytes.len() as u32
        );
        assert_eq!(
            u32::from_le_bytes(bytes[12..16].try_into().unwrap()),
            plain_len
        );
    }
}

#[test]
fn no_matching_isa_lists_agent_and_targets() {
    for file in BUNDLES {
        let bytes = kernel_file(&format!("bundles/{file}"));
        let bundle = Bundle::parse(&bytes).unwrap();
        for err in [
            bundle.select(&agent("gfx1030")).unwrap_err(),
            code_object_for_agent(&bytes, &agent("gfx1030")).unwrap_err(),
        ] {
            assert_eq!(
                err,
                CodeObjectError::NoMatchingIsa {
                    agent: "amdgcn-amd-amdhsa--gfx1030".into(),
                    available: vec![
                        "hipv4-amdgcn-amd-amdhsa--gfx1100".into(),
                        "hipv4-amdgcn-amd-amdhsa--gfx942".into(),
                        "hipv4-amdgcn-amd-amdhsa--gfx90a".into()
                    ],
                }
            );
            let message = err.to_string();
            for needle in ["gfx1030", "gfx1100", "gfx942", "gfx90a"] {
                assert!(message.contains(needle), "{message}");
            }
        }
    }
}

#[test]
fn plain_elf_input_is_checked_against_the_agent() {
    let bytes = kernel_file("gfx942/saxpy.co");
    let same = code_object_for_agent(&bytes, &agent("gfx942:sramecc+:xnack-")).unwrap();
    assert!(matches!(same, Cow::Borrowed(b) if b == bytes.as_slice()));
    assert_eq!(
        code_object_for_agent(&bytes, &agent("gfx1100")).unwrap_err(),
        CodeObjectError::NoMatchingIsa {
            agent: "amdgcn-amd-amdhsa--gfx1100".into(),
            available: vec!["amdgcn-amd-amdhsa--gfx942".into()],
        }
    );
    assert_eq!(
        code_object_for_agent(b"\x7fELF", &agent("gfx942")).unwrap_err(),
        CodeObjectError::Truncated(TruncatedPart::Header { needed: 64, len: 4 })
    );
    assert_eq!(
        code_object_for_agent(b"garbage!", &agent("gfx942")).unwrap_err(),
        CodeObjectError::NotElf
    );
}

/// A plain bundle with the given (id, contents) entries, laid out as clang-offload-bundler does.
fn make_bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut header = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    header.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let table_len: usize = entries.iter().map(|(id, _)| 24 + id.len()).sum();
    let mut offset = header.len() + table_len;
    for (id, data) in entries {
        header.extend_from_slice(&(offset as u64).to_le_bytes());
        header.extend_from_slice(&(data.len() as u64).to_le_bytes());
        header.extend_from_slice(&(id.len() as u64).to_le_bytes());
        header.extend_from_slice(id.as_bytes());
        offset += data.len();
    }
    for (_, data) in entries {
        header.extend_from_slice(data);
    }
    header
}

#[test]
fn selection_prefers_exact_feature_matches() {
    let bytes = make_bundle(&[
        ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", b"off"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", b"any"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", b"on"),
        ("hip-amdgcn-amd-amdhsa-gfx906", b"v3 naming"),
        ("sycl-spir64-unknown-unknown", b"not amdgpu"),
    ]);
    let bundle = Bundle::parse(&bytes).unwrap();
    assert_eq!(bundle.entries.len(), 5);
    assert_eq!(bundle.select(&agent("gfx90a:xnack+")).unwrap(), b"on");
    assert_eq!(bundle.select(&agent("gfx90a:xnack-")).unwrap(), b"off");
    assert_eq!(bundle.select(&agent("gfx90a:sramecc+")).unwrap(), b"any");
    assert_eq!(bundle.select(&agent("gfx906")).unwrap(), b"v3 naming");
    assert_eq!(
        &*code_object_for_agent(&bytes, &agent("gfx90a:xnack+")).unwrap(),
        b"on"
    );
    let only_on = make_bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", b"on")]);
    assert!(matches!(
        Bundle::parse(&only_on)
            .unwrap()
            .select(&agent("gfx90a:xnack-")),
        Err(CodeObjectError::NoMatchingIsa { .. })
    ));
}

#[test]
fn broken_plain_bundles() {
    let good = kernel_file("bundles/saxpy.bundle");
    for cut in [10usize, 30, 40, 60, 100, good.len() - 1] {
        let err = Bundle::parse(&good[..cut]).unwrap_err();
        assert!(
            matches!(
                err,
                CodeObjectError::Bundle(
                    BundleError::MissingMagic
                        | BundleError::EntryCount
                        | BundleError::EntryTable { .. }
                        | BundleError::EntryRecord { .. }
                        | BundleError::EntryId { .. }
                        | BundleError::EntryData { .. }
                )
            ),
            "{cut}: {err}"
        );
    }
    let mut huge_count = good.clone();
    huge_count[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        Bundle::parse(&huge_count),
        Err(CodeObjectError::Bundle(BundleError::EntryTable {
            count: u64::MAX
        }))
    ));
    // Entry 1's size (at 32 + 24 + 30 + 8) pointing past the end of the file.
    let mut bad_size = good.clone();
    let size_at = 32 + 24 + "host-x86_64-unknown-linux-gnu-".len() + 8;
    bad_size[size_at..size_at + 8].copy_from_slice(&(good.len() as u64).to_le_bytes());
    assert!(matches!(
        Bundle::parse(&bad_size),
        Err(CodeObjectError::Bundle(BundleError::EntryData { index: 1, size, .. }))
            if size == good.len() as u64
    ));
    let mut bad_id = make_bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx90a", b"x")]);
    bad_id[32 + 24] = 0xff;
    assert!(matches!(
        Bundle::parse(&bad_id),
        Err(CodeObjectError::Bundle(BundleError::EntryIdNotUtf8 {
            index: 0
        }))
    ));
}

/// Rewrap the checked-in zlib payload with a v1 (no total size) or v3 (64-bit sizes) header.
fn rewrap(version: u16) -> Vec<u8> {
    let v2 = kernel_file("bundles/saxpy.zlib.bundle");
    let uncompressed = u32::from_le_bytes(v2[12..16].try_into().unwrap());
    let hash = &v2[16..24];
    let payload = &v2[24..];
    let mut out = b"CCOB".to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    if version == 1 {
        out.extend_from_slice(&uncompressed.to_le_bytes());
    } else {
        out.extend_from_slice(&(32 + payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&u64::from(uncompressed).to_le_bytes());
    }
    out.extend_from_slice(hash);
    out.extend_from_slice(payload);
    out
}

#[test]
fn compressed_bundle_versions_and_corruption() {
    let reference = Bundle::parse(&kernel_file("bundles/saxpy.bundle")).unwrap();
    for version in [1u16, 3] {
        assert_eq!(
            Bundle::parse(&rewrap(version)).unwrap(),
            reference,
            "CCOB v{version}"
        );
    }
    for file in ["saxpy.zstd.bundle", "saxpy.zlib.bundle"] {
        let good = kernel_file(&format!("bundles/{file}"));
        assert_eq!(Bundle::parse(&good).unwrap(), reference);

        let mut payload_flip = good.clone();
        let mid = 24 + (good.len() - 24) / 2;
        payload_flip[mid] ^= 0x10;
        let err = Bundle::parse(&payload_flip).unwrap_err();
        assert!(
            matches!(
                err,
                CodeObjectError::Bundle(
                    BundleError::Decoder { .. }
                        | BundleError::SizeMismatch { .. }
                        | BundleError::Md5Mismatch
                )
            ),
            "{file}: {err}"
        );

        let mut hash_flip = good.clone();
        hash_flip[16] ^= 1;
        let err = Bundle::parse(&hash_flip).unwrap_err();
        assert_eq!(
            err,
            CodeObjectError::Bundle(BundleError::Md5Mismatch),
            "{file}"
        );

        let mut size_lie = good.clone();
        size_lie[12..16].copy_from_slice(&100u32.to_le_bytes());
        assert!(
            matches!(
                Bundle::parse(&size_lie),
                Err(CodeObjectError::Bundle(BundleError::SizeMismatch {
                    declared: 100,
                    ..
                }))
            ),
            "{file}"
        );

        let err = Bundle::parse(&good[..good.len() - 10]).unwrap_err();
        assert!(
            matches!(
                err,
                CodeObjectError::Bundle(BundleError::CompressedPayload { .. })
            ),
            "{file}: {err}"
        );
        assert!(matches!(
            Bundle::parse(&good[..10]),
            Err(CodeObjectError::Bundle(BundleError::CompressedHeader))
        ));

        let mut method = good.clone();
        method[6] = 7;
        assert!(matches!(
            Bundle::parse(&method),
            Err(CodeObjectError::Bundle(BundleError::CompressionMethod {
                method: 7
            }))
        ));
        let mut version = good.clone();
        version[4] = 9;
        assert!(matches!(
            Bundle::parse(&version),
            Err(CodeObjectError::Bundle(BundleError::CompressedVersion {
                version: 9
            }))
        ));
    }
}
