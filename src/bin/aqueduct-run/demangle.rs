//! A small Itanium C++ ABI demangler for kernel symbols: enough of the
//! grammar (Itanium C++ ABI, "External Names" 5.1) for the function names
//! HIP kernels get: nested and `std::` names, template arguments, builtin,
//! named, pointer, reference, cv-qualified and vector parameter types, and
//! substitutions (`S_`, `S0_`, ...). What it does not know (operators,
//! constructors, function types, lambdas) makes it give up with `None`;
//! such a kernel is still found by its mangled symbol.

/// A demangled function symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demangled {
    /// `ns::name<args>(params)`, as c++filt prints it (template functions
    /// with their return type first).
    pub full: String,
    /// The unqualified function name without template arguments (`name`).
    pub base: String,
}

/// Demangle `symbol`; `None` when it is not an Itanium name this demangler knows.
pub fn demangle(symbol: &str) -> Option<Demangled> {
    let rest = symbol.strip_prefix("_Z")?;
    let mut p = Parser {
        s: rest.as_bytes(),
        pos: 0,
        subs: Vec::new(),
        template_args: Vec::new(),
    };
    let (name, base, is_template) = p.name()?;
    // A template function's encoding starts with its return type.
    let ret = if is_template {
        format!("{} ", p.ty()?)
    } else {
        String::new()
    };
    let mut params = Vec::new();
    while p.pos < p.s.len() {
        params.push(p.ty()?);
    }
    if params.is_empty() {
        return None;
    }
    let params = if params == ["void"] {
        String::new()
    } else {
        params.join(", ")
    };
    Some(Demangled {
        full: format!("{ret}{name}({params})"),
        base,
    })
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    /// The substitution candidates in the order the ABI numbers them.
    subs: Vec<String>,
    /// The template arguments of the function name (`T_`, `T0_`, ...).
    template_args: Vec<String>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos])
            .ok()?
            .parse()
            .ok()
    }

    fn source_name(&mut self) -> Option<String> {
        let len = self.number()?;
        let end = self.pos.checked_add(len).filter(|&e| e <= self.s.len())?;
        let id = std::str::from_utf8(&self.s[self.pos..end])
            .ok()?
            .to_string();
        self.pos = end;
        Some(id)
    }

    /// `S_` is candidate 0, `S<seq-id>_` candidate seq-id + 1 (base 36).
    fn substitution(&mut self) -> Option<String> {
        if !self.eat(b'S') {
            return None;
        }
        let mut index = 0usize;
        if !self.eat(b'_') {
            loop {
                let c = self.peek()?;
                self.pos += 1;
                match c {
                    b'0'..=b'9' => index = index * 36 + (c - b'0') as usize,
                    b'A'..=b'Z' => index = index * 36 + (c - b'A') as usize + 10,
                    b'_' => break,
                    _ => return None,
                }
            }
            index += 1;
        }
        self.subs.get(index).cloned()
    }

    /// The function name: (qualified name, base name, has template args).
    fn name(&mut self) -> Option<(String, String, bool)> {
        if self.eat(b'N') {
            // CV-qualifiers of a member function do not change its name.
            while matches!(self.peek(), Some(b'K' | b'V' | b'r')) {
                self.pos += 1;
            }
            let mut prefix = String::new();
            let mut base = String::new();
            let mut is_template = false;
            while !self.eat(b'E') {
                if self.peek() == Some(b'I') {
                    let args = self.template_args()?;
                    prefix.push_str(&args);
                    is_template = true;
                } else if self.peek() == Some(b'S') && prefix.is_empty() {
                    if self.s.get(self.pos + 1) == Some(&b't') {
                        self.pos += 2;
                        prefix.push_str("std");
                        continue;
                    }
                    prefix = self.substitution()?;
                    is_template = false;
                    continue;
                } else {
                    let id = self.source_name()?;
                    if !prefix.is_empty() {
                        prefix.push_str("::");
                    }
                    prefix.push_str(&id);
                    base = id;
                    is_template = false;
                }
                self.subs.push(prefix.clone());
            }
            // The whole function name is no candidate.
            self.subs.pop();
            return Some((prefix, base, is_template));
        }
        let std = self.s[self.pos..].starts_with(b"St");
        if std {
            self.pos += 2;
        }
        let base = self.source_name()?;
        let mut name = if std {
            format!("std::{base}")
        } else {
            base.clone()
        };
        if self.peek() == Some(b'I') {
            self.subs.push(name.clone());
            name.push_str(&self.template_args()?);
            return Some((name, base, true));
        }
        Some((name, base, false))
    }

    fn template_args(&mut self) -> Option<String> {
        self.eat(b'I').then_some(())?;
        let mut args = Vec::new();
        while !self.eat(b'E') {
            let arg = if self.eat(b'L') {
                let ty = self.ty()?;
                let negative = self.eat(b'n');
                let value = self.number()?;
                self.eat(b'E').then_some(())?;
                let sign = if negative { "-" } else { "" };
                match ty.as_str() {
                    "bool" => (if value == 0 { "false" } else { "true" }).to_string(),
                    "int" => format!("{sign}{value}"),
                    "unsigned int" => format!("{value}u"),
                    "long" => format!("{sign}{value}l"),
                    "unsigned long" => format!("{value}ul"),
                    _ => format!("({ty}){sign}{value}"),
                }
            } else {
                self.ty()?
            };
            args.push(arg);
        }
        self.template_args = args.clone();
        let joined = args.join(", ");
        // `a<b<c> >` as c++filt spells nested closing brackets.
        let close = if joined.ends_with('>') { " >" } else { ">" };
        Some(format!("<{joined}{close}"))
    }

    fn ty(&mut self) -> Option<String> {
        let builtin = match self.peek()? {
            b'v' => "void",
            b'b' => "bool",
            b'c' => "char",
            b'a' => "signed char",
            b'h' => "unsigned char",
            b's' => "short",
            b't' => "unsigned short",
            b'i' => "int",
            b'j' => "unsigned int",
            b'l' => "long",
            b'm' => "unsigned long",
            b'x' => "long long",
            b'y' => "unsigned long long",
            b'n' => "__int128",
            b'o' => "unsigned __int128",
            b'f' => "float",
            b'd' => "double",
            b'e' => "long double",
            b'w' => "wchar_t",
            _ => "",
        };
        if !builtin.is_empty() {
            self.pos += 1;
            return Some(builtin.to_string());
        }
        let ty = match self.peek()? {
            b'P' | b'R' | b'O' => {
                let c = self.peek()?;
                self.pos += 1;
                let inner = self.ty()?;
                let sigil = match c {
                    b'P' => "*",
                    b'R' => "&",
                    _ => "&&",
                };
                format!("{inner}{sigil}")
            }
            b'K' | b'V' | b'r' => {
                let c = self.peek()?;
                self.pos += 1;
                let inner = self.ty()?;
                let qual = match c {
                    b'K' => "const",
                    b'V' => "volatile",
                    _ => "restrict",
                };
                format!("{inner} {qual}")
            }
            b'D' => {
                self.pos += 1;
                match self.peek()? {
                    b'h' => {
                        self.pos += 1;
                        return Some("_Float16".to_string());
                    }
                    b'n' => {
                        self.pos += 1;
                        return Some("decltype(nullptr)".to_string());
                    }
                    b'v' => {
                        self.pos += 1;
                        let lanes = self.number()?;
                        self.eat(b'_').then_some(())?;
                        let elem = self.ty()?;
                        format!("{elem} __vector({lanes})")
                    }
                    _ => return None,
                }
            }
            b'T' => {
                self.pos += 1;
                let index = if self.eat(b'_') {
                    0
                } else {
                    let n = self.number()? + 1;
                    self.eat(b'_').then_some(())?;
                    n
                };
                let arg = self.template_args.get(index)?.clone();
                // A template parameter is a candidate itself.
                self.subs.push(arg.clone());
                return Some(arg);
            }
            b'S' if self.s.get(self.pos + 1) != Some(&b't') => {
                // A substitution is no new candidate, unless template arguments follow.
                let sub = self.substitution()?;
                if self.peek() == Some(b'I') {
                    let full = format!("{sub}{}", self.template_args()?);
                    self.subs.push(full.clone());
                    return Some(full);
                }
                return Some(sub);
            }
            b'N' | b'S' | b'0'..=b'9' => {
                let (name, _, _) = self.name()?;
                // A class name is a candidate (nested names pushed their prefixes already).
                if self.subs.last().is_none_or(|s| *s != name) {
                    self.subs.push(name.clone());
                }
                return Some(name);
            }
            _ => return None,
        };
        self.subs.push(ty.clone());
        Some(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names_as_cxxfilt_prints_them() {
        // Expected texts from c++filt (GNU binutils).
        let cases = [
            (
                "_Z14reverse_blocksPjj",
                "reverse_blocks(unsigned int*, unsigned int)",
            ),
            ("_Z8softMax2PfS_i", "softMax2(float*, float*, int)"),
            ("_Z5emptyv", "empty()"),
            (
                "_Z4gemmPKfS0_Pfiii",
                "gemm(float const*, float const*, float*, int, int, int)",
            ),
            (
                "_ZN3ops6detail4scanEPjS1_m",
                "ops::detail::scan(unsigned int*, unsigned int*, unsigned long)",
            ),
            ("_Z6kernelIfEvPT_S1_", "void kernel<float>(float*, float*)"),
            ("_Z4tileILi16EEvPfi", "void tile<16>(float*, int)"),
            ("_Z3dotDv4_fS_", "dot(float __vector(4), float __vector(4))"),
        ];
        for (symbol, want) in cases {
            let got = demangle(symbol).unwrap_or_else(|| panic!("{symbol} not demangled"));
            assert_eq!(got.full, want, "{symbol}");
        }
        assert_eq!(demangle("_ZN3ops6detail4scanEPjS1_m").unwrap().base, "scan");
        assert_eq!(demangle("_Z6kernelIfEvPT_S1_").unwrap().base, "kernel");
    }

    #[test]
    fn plain_and_unknown_symbols_are_none() {
        for symbol in ["saxpy", "_Z", "_Z3fo", "_ZN3fooC1Ev", "_Z1fS9_"] {
            assert_eq!(demangle(symbol), None, "{symbol}");
        }
    }
}
