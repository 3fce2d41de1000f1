//! Command-line value specs of `aqueduct-run`: what one `--arg NAME=VALUE`
//! means before it is matched against the kernel's metadata.
//!
//! A spec is typed by its prefix. Whether `f32:1.5` is a scalar or a
//! one-element buffer is decided later by the argument's value kind (by
//! value vs global buffer), so parsing keeps both readings.

use std::path::PathBuf;

/// Why a `--arg`, `--grid` or `--workgroup` value does not parse.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{text:?} is not a valid {ty:?} value: {reason}")]
    BadScalar {
        text: String,
        ty: ScalarType,
        reason: ScalarProblem,
    },
    #[error("{what} {text:?} is not a number (e.g. 4096, 64K, 16M)")]
    SizeNotANumber { what: &'static str, text: String },
    #[error("{what} {text:?} is too large")]
    SizeOverflow { what: &'static str, text: String },
    #[error("{what} {text:?} exceeds the {MAX_BUFFER_BYTES}-byte limit")]
    SizeLimit { what: &'static str, text: String },
    #[error("`@` must be followed by a file name")]
    EmptyFileName,
    #[error(
        "{0:?}: expected TYPE:VALUE, @FILE, zeros:BYTES, iota-TYPE:COUNT, out:FILE:BYTES, inout:FILE or local:BYTES"
    )]
    NoType(String),
    #[error("{0:?}: expected out:FILE:BYTES")]
    BadOutput(String),
    #[error("{0:?}: empty output file name")]
    EmptyOutputName(String),
    #[error("{0:?}: expected inout:FILE")]
    EmptyInOutName(String),
    #[error("local:BYTES sizes LDS for a __local pointer argument; a global buffer needs data")]
    LocalIsNoBuffer,
    #[error("{0:?}: unknown element type (u8..u64, i8..i64, f32, f64)")]
    UnknownElementType(String),
    #[error("{0:?}: buffer too large")]
    BufferTooLarge(String),
    #[error(
        "{0:?}: unknown value type (u8..u64, i8..i64, f32, f64, zeros, iota-TYPE, out, inout, local)"
    )]
    UnknownValueType(String),
    #[error("{text:?}: no value after {head}:")]
    NoValue { text: String, head: String },
    #[error("cannot read {}: {source}", path.display())]
    ReadFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--arg {0:?}: expected NAME_OR_INDEX=VALUE")]
    NoArgName(String),
    #[error("--arg {0:?}: empty argument name")]
    EmptyArgName(String),
    #[error("--arg {text:?}: {source}")]
    BadArgValue {
        text: String,
        #[source]
        source: Box<SpecError>,
    },
    #[error("{what} {text:?}: expected X, X,Y or X,Y,Z")]
    DimCount { what: &'static str, text: String },
    #[error("{what} {text:?}: {part:?} is not a positive integer")]
    BadDim {
        what: &'static str,
        text: String,
        part: String,
    },
    #[error("{what} {text:?}: dimensions must be at least 1")]
    ZeroDim { what: &'static str, text: String },
}

/// Why a scalar's text is not a value of its type.
#[derive(Debug, thiserror::Error)]
pub enum ScalarProblem {
    #[error("{0}")]
    Int(#[from] std::num::ParseIntError),
    #[error("{0}")]
    Float(#[from] std::num::ParseFloatError),
    #[error("out of range (max {max})")]
    AboveMax { max: u64 },
    #[error("out of range ({min}..={max})")]
    OutOfRange { min: i64, max: i64 },
}

/// Scalar element types a spec may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl ScalarType {
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "u8" => Self::U8,
            "i8" => Self::I8,
            "u16" => Self::U16,
            "i16" => Self::I16,
            "u32" => Self::U32,
            "i32" => Self::I32,
            "u64" => Self::U64,
            "i64" => Self::I64,
            "f32" => Self::F32,
            "f64" => Self::F64,
            _ => return None,
        })
    }

    /// The spec prefix that names this type (`u32`).
    pub fn name(self) -> &'static str {
        match self {
            Self::U8 => "u8",
            Self::I8 => "i8",
            Self::U16 => "u16",
            Self::I16 => "i16",
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::U64 => "u64",
            Self::I64 => "i64",
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }

    /// The type a kernel argument's metadata `.type_name` declares, for the
    /// OpenCL C scalar types (AMDGPUUsage "Code Object V3 Metadata":
    /// `.type_name` is the source type); `None` for other types (structs,
    /// typedefs, `half`, vectors), which are not checked.
    pub fn from_type_name(type_name: &str) -> Option<Self> {
        Some(match type_name.trim() {
            "bool" | "uchar" | "unsigned char" => Self::U8,
            "char" | "signed char" => Self::I8,
            "ushort" | "unsigned short" => Self::U16,
            "short" => Self::I16,
            "uint" | "unsigned int" | "unsigned" => Self::U32,
            "int" => Self::I32,
            "ulong" | "unsigned long" | "size_t" | "uintptr_t" => Self::U64,
            "long" | "ptrdiff_t" | "intptr_t" => Self::I64,
            "float" => Self::F32,
            "double" => Self::F64,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        match self {
            Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 => 2,
            Self::U32 | Self::I32 | Self::F32 => 4,
            Self::U64 | Self::I64 | Self::F64 => 8,
        }
    }

    /// Little-endian bytes of one element written as text.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, SpecError> {
        let t = text.trim();
        let bad = |reason: ScalarProblem| SpecError::BadScalar {
            text: t.to_string(),
            ty: self,
            reason,
        };
        // Hex (0x...) for unsigned types goes through u64.
        let hex = |t: &str| -> Option<u64> {
            t.strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .and_then(|h| u64::from_str_radix(h, 16).ok())
        };
        let unsigned = |max: u64| -> Result<u64, SpecError> {
            let v = match hex(t) {
                Some(v) => v,
                None => t.parse::<u64>().map_err(|e| bad(e.into()))?,
            };
            if v > max {
                return Err(bad(ScalarProblem::AboveMax { max }));
            }
            Ok(v)
        };
        let signed = |min: i64, max: i64| -> Result<i64, SpecError> {
            let v = t.parse::<i64>().map_err(|e| bad(e.into()))?;
            if v < min || v > max {
                return Err(bad(ScalarProblem::OutOfRange { min, max }));
            }
            Ok(v)
        };
        Ok(match self {
            Self::U8 => vec![unsigned(u8::MAX as u64)? as u8],
            Self::I8 => (signed(i8::MIN as i64, i8::MAX as i64)? as i8)
                .to_le_bytes()
                .to_vec(),
            Self::U16 => (unsigned(u16::MAX as u64)? as u16).to_le_bytes().to_vec(),
            Self::I16 => (signed(i16::MIN as i64, i16::MAX as i64)? as i16)
                .to_le_bytes()
                .to_vec(),
            Self::U32 => (unsigned(u32::MAX as u64)? as u32).to_le_bytes().to_vec(),
            Self::I32 => (signed(i32::MIN as i64, i32::MAX as i64)? as i32)
                .to_le_bytes()
                .to_vec(),
            Self::U64 => unsigned(u64::MAX)?.to_le_bytes().to_vec(),
            Self::I64 => signed(i64::MIN, i64::MAX)?.to_le_bytes().to_vec(),
            Self::F32 => t
                .parse::<f32>()
                .map_err(|e| bad(e.into()))?
                .to_le_bytes()
                .to_vec(),
            Self::F64 => t
                .parse::<f64>()
                .map_err(|e| bad(e.into()))?
                .to_le_bytes()
                .to_vec(),
        })
    }
}

/// Parsed `VALUE` of `--arg NAME=VALUE`.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueSpec {
    /// `TYPE:v[,v...]`: a scalar (one value, for by-value arguments) or the
    /// initial contents of an input buffer (for pointer arguments).
    Typed {
        ty: ScalarType,
        values: Vec<u8>,
        count: usize,
    },
    /// `@FILE`: an input buffer with the file's bytes.
    File(PathBuf),
    /// `zeros:BYTES`: a zero-filled input buffer.
    Zeros(u64),
    /// `iota-TYPE:COUNT`: COUNT elements 0, 1, 2, ... of an integer or
    /// float type.
    Iota { ty: ScalarType, count: u64 },
    /// `out:FILE:BYTES`: a zero-filled buffer written to FILE after the
    /// dispatch.
    Output { path: PathBuf, bytes: u64 },
    /// `inout:FILE`: a buffer with the file's bytes, written back to FILE
    /// after the dispatch.
    InOut(PathBuf),
    /// `local:BYTES`: LDS of that size for a `__local` pointer argument
    /// (value kind `dynamic_shared_pointer`).
    Local(u64),
}

/// Largest buffer a spec may ask for (bytes); larger is almost surely a typo.
pub const MAX_BUFFER_BYTES: u64 = 1 << 34;

pub fn parse_size(text: &str, what: &'static str) -> Result<u64, SpecError> {
    let t = text.trim();
    let (digits, mult) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&t[..i], 1u64 << 20),
        Some((i, 'G' | 'g')) => (&t[..i], 1u64 << 30),
        _ => (t, 1),
    };
    let n: u64 = digits.parse().map_err(|_| SpecError::SizeNotANumber {
        what,
        text: t.to_string(),
    })?;
    let v = n.checked_mul(mult).ok_or_else(|| SpecError::SizeOverflow {
        what,
        text: t.to_string(),
    })?;
    if v > MAX_BUFFER_BYTES {
        return Err(SpecError::SizeLimit {
            what,
            text: t.to_string(),
        });
    }
    Ok(v)
}

impl ValueSpec {
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        if let Some(path) = text.strip_prefix('@') {
            if path.is_empty() {
                return Err(SpecError::EmptyFileName);
            }
            return Ok(ValueSpec::File(PathBuf::from(path)));
        }
        let (head, rest) = text
            .split_once(':')
            .ok_or_else(|| SpecError::NoType(text.to_string()))?;
        match head {
            "zeros" => Ok(ValueSpec::Zeros(parse_size(rest, "zeros size")?)),
            "local" => Ok(ValueSpec::Local(parse_size(rest, "local size")?)),
            "inout" if rest.is_empty() => Err(SpecError::EmptyInOutName(text.to_string())),
            "inout" => Ok(ValueSpec::InOut(PathBuf::from(rest))),
            "out" => {
                let (path, bytes) = rest
                    .rsplit_once(':')
                    .ok_or_else(|| SpecError::BadOutput(text.to_string()))?;
                if path.is_empty() {
                    return Err(SpecError::EmptyOutputName(text.to_string()));
                }
                Ok(ValueSpec::Output {
                    path: PathBuf::from(path),
                    bytes: parse_size(bytes, "output size")?,
                })
            }
            _ if head.starts_with("iota-") => {
                let ty = ScalarType::parse(&head[5..])
                    .ok_or_else(|| SpecError::UnknownElementType(head.to_string()))?;
                let count = parse_size(rest, "iota count")?;
                if count.saturating_mul(ty.size() as u64) > MAX_BUFFER_BYTES {
                    return Err(SpecError::BufferTooLarge(text.to_string()));
                }
                Ok(ValueSpec::Iota { ty, count })
            }
            _ => {
                let ty = ScalarType::parse(head)
                    .ok_or_else(|| SpecError::UnknownValueType(head.to_string()))?;
                if rest.trim().is_empty() {
                    return Err(SpecError::NoValue {
                        text: text.to_string(),
                        head: head.to_string(),
                    });
                }
                let mut values = Vec::new();
                let mut count = 0;
                for item in rest.split(',') {
                    values.extend(ty.encode(item)?);
                    count += 1;
                }
                Ok(ValueSpec::Typed { ty, values, count })
            }
        }
    }

    /// Initial bytes of the buffer this spec describes (files are read).
    pub fn buffer_bytes(&self) -> Result<Vec<u8>, SpecError> {
        match self {
            ValueSpec::Typed { values, .. } => Ok(values.clone()),
            ValueSpec::File(p) | ValueSpec::InOut(p) => {
                std::fs::read(p).map_err(|source| SpecError::ReadFile {
                    path: p.clone(),
                    source,
                })
            }
            ValueSpec::Zeros(n) => Ok(vec![0; *n as usize]),
            ValueSpec::Output { bytes, .. } => Ok(vec![0; *bytes as usize]),
            ValueSpec::Local(_) => Err(SpecError::LocalIsNoBuffer),
            ValueSpec::Iota { ty, count } => {
                let mut out = Vec::with_capacity(*count as usize * ty.size());
                for i in 0..*count {
                    let bytes = match ty {
                        ScalarType::F32 => (i as f32).to_le_bytes().to_vec(),
                        ScalarType::F64 => (i as f64).to_le_bytes().to_vec(),
                        _ => i.to_le_bytes()[..ty.size()].to_vec(),
                    };
                    out.extend(bytes);
                }
                Ok(out)
            }
        }
    }
}

/// Which kernel argument a `--arg` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKey {
    Index(usize),
    Name(String),
}

/// Split `NAME_OR_INDEX=VALUE`.
pub fn parse_arg(text: &str) -> Result<(ArgKey, ValueSpec), SpecError> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| SpecError::NoArgName(text.to_string()))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(SpecError::EmptyArgName(text.to_string()));
    }
    let key = match key.parse::<usize>() {
        Ok(i) => ArgKey::Index(i),
        Err(_) => ArgKey::Name(key.to_string()),
    };
    Ok((
        key,
        ValueSpec::parse(value).map_err(|e| SpecError::BadArgValue {
            text: text.to_string(),
            source: Box::new(e),
        })?,
    ))
}

/// Parse `X[,Y[,Z]]` into three dimensions (missing ones are 1) and the
/// number given.
pub fn parse_dims(text: &str, what: &'static str) -> Result<([u32; 3], u32), SpecError> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(SpecError::DimCount {
            what,
            text: text.to_string(),
        });
    }
    let mut dims = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let v: u32 = p.trim().parse().map_err(|_| SpecError::BadDim {
            what,
            text: text.to_string(),
            part: p.to_string(),
        })?;
        if v == 0 {
            return Err(SpecError::ZeroDim {
                what,
                text: text.to_string(),
            });
        }
        dims[i] = v;
    }
    Ok((dims, parts.len() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_and_lists() {
        assert_eq!(
            ValueSpec::parse("u32:7").unwrap(),
            ValueSpec::Typed {
                ty: ScalarType::U32,
                values: 7u32.to_le_bytes().to_vec(),
                count: 1
            }
        );
        let ValueSpec::Typed { values, count, .. } = ValueSpec::parse("f32:1,2.5,-3").unwrap()
        else {
            panic!("typed expected")
        };
        assert_eq!(count, 3);
        let floats: Vec<f32> = values
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(floats, vec![1.0, 2.5, -3.0]);
        assert_eq!(
            ScalarType::U64.encode("0x10").unwrap(),
            16u64.to_le_bytes().to_vec()
        );
        assert_eq!(ScalarType::I8.encode("-128").unwrap(), vec![0x80]);
    }

    #[test]
    fn buffers() {
        assert_eq!(
            ValueSpec::parse("zeros:4K").unwrap(),
            ValueSpec::Zeros(4096)
        );
        assert_eq!(
            ValueSpec::parse("out:res/y.bin:64").unwrap(),
            ValueSpec::Output {
                path: "res/y.bin".into(),
                bytes: 64
            }
        );
        assert_eq!(
            ValueSpec::parse("local:1K").unwrap(),
            ValueSpec::Local(1024)
        );
        assert_eq!(
            ValueSpec::parse("inout:res/a.bin").unwrap(),
            ValueSpec::InOut("res/a.bin".into())
        );
        assert!(matches!(
            ValueSpec::parse("inout:"),
            Err(SpecError::EmptyInOutName(_))
        ));
        let iota = ValueSpec::parse("iota-u32:4")
            .unwrap()
            .buffer_bytes()
            .unwrap();
        assert_eq!(
            iota,
            [0u32, 1, 2, 3]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<_>>()
        );
        let iota = ValueSpec::parse("iota-u16:3")
            .unwrap()
            .buffer_bytes()
            .unwrap();
        assert_eq!(iota, vec![0, 0, 1, 0, 2, 0]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        type Expected = fn(&SpecError) -> bool;
        let cases: [(&str, Expected); 9] = [
            ("u32:-1", |e| {
                matches!(
                    e,
                    SpecError::BadScalar {
                        ty: ScalarType::U32,
                        reason: ScalarProblem::Int(_),
                        ..
                    }
                )
            }),
            ("u8:300", |e| {
                matches!(
                    e,
                    SpecError::BadScalar {
                        reason: ScalarProblem::AboveMax { max: 255 },
                        ..
                    }
                )
            }),
            (
                "q32:1",
                |e| matches!(e, SpecError::UnknownValueType(t) if t == "q32"),
            ),
            ("zeros:lots", |e| {
                matches!(e, SpecError::SizeNotANumber { .. })
            }),
            ("zeros:99G", |e| matches!(e, SpecError::SizeLimit { .. })),
            ("out:file", |e| matches!(e, SpecError::BadOutput(_))),
            ("7", |e| matches!(e, SpecError::NoType(_))),
            ("@", |e| matches!(e, SpecError::EmptyFileName)),
            ("f32:", |e| matches!(e, SpecError::NoValue { .. })),
        ];
        for (text, expected) in cases {
            let err = ValueSpec::parse(text).unwrap_err();
            assert!(expected(&err), "{text}: {err:?}");
        }
        // The message names the value and the type it is not.
        let err = ValueSpec::parse("u32:-1").unwrap_err().to_string();
        assert!(err.contains("\"-1\" is not a valid U32 value"), "{err}");
    }

    #[test]
    fn args_and_dims() {
        assert_eq!(parse_arg("0=u32:1").unwrap().0, ArgKey::Index(0));
        assert_eq!(parse_arg("n=u32:1").unwrap().0, ArgKey::Name("n".into()));
        assert!(matches!(parse_arg("n"), Err(SpecError::NoArgName(t)) if t == "n"));
        assert_eq!(parse_dims("64", "--grid").unwrap(), ([64, 1, 1], 1));
        assert_eq!(parse_dims("8,4,2", "--grid").unwrap(), ([8, 4, 2], 3));
        assert!(matches!(
            parse_dims("8,0", "--grid"),
            Err(SpecError::ZeroDim { what: "--grid", .. })
        ));
        assert!(matches!(
            parse_dims("1,2,3,4", "--grid"),
            Err(SpecError::DimCount { .. })
        ));
    }
}
