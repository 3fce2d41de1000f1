//! Which sanitizer tools run: the set `AQUEDUCT_SIM_SANITIZE` or
//! `aqueduct-run --sanitize` names (`memcheck,racecheck,initcheck,synccheck`,
//! or `all`, and `racecheck-global`, which `all` leaves out because benign
//! same-value races between workgroups are common), and its typed parse
//! error.

use std::fmt;

/// Environment variable naming the sanitizer tools gfxsim runs (a comma
/// list, or `all`; empty or unset: none).
pub const SANITIZE_ENV: &str = "AQUEDUCT_SIM_SANITIZE";

/// One sanitizer tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tool {
    /// Accesses past the allocation, the LDS or the private segment they lie in.
    Memcheck,
    /// LDS bytes two waves of a workgroup access with no barrier between,
    /// at least one of them writing.
    Racecheck,
    /// Reads of LDS the workgroup never wrote.
    Initcheck,
    /// Barriers not every wave of the workgroup reaches.
    Synccheck,
    /// Global bytes two workgroups of a dispatch access, at least one
    /// writing, neither atomically.
    RacecheckGlobal,
}

impl Tool {
    /// The tools `all` turns on, in report order.
    pub const ALL: [Tool; 4] = [
        Tool::Memcheck,
        Tool::Racecheck,
        Tool::Initcheck,
        Tool::Synccheck,
    ];

    /// Every tool, in report order: `all`'s and `racecheck-global`.
    pub const EVERY: [Tool; 5] = [
        Tool::Memcheck,
        Tool::Racecheck,
        Tool::Initcheck,
        Tool::Synccheck,
        Tool::RacecheckGlobal,
    ];

    /// The tool's name as the environment and the reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Memcheck => "memcheck",
            Tool::Racecheck => "racecheck",
            Tool::Initcheck => "initcheck",
            Tool::Synccheck => "synccheck",
            Tool::RacecheckGlobal => "racecheck-global",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The names a tool list may hold.
pub const TOOL_NAMES: &str = "memcheck, racecheck, initcheck, synccheck, all, racecheck-global";

/// A tool list that names something other than a tool.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanitizeParseError {
    #[error("unknown sanitizer tool `{name}` (the tools are {TOOL_NAMES})")]
    UnknownTool { name: String },
}

/// A set of sanitizer tools (empty: the sanitizer is off).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SanitizerConfig {
    bits: u8,
}

impl SanitizerConfig {
    /// No tool: the sanitizer is off.
    pub const fn off() -> SanitizerConfig {
        SanitizerConfig { bits: 0 }
    }

    /// The tools `all` names (every one but `racecheck-global`).
    pub fn all() -> SanitizerConfig {
        Tool::ALL.into_iter().fold(Self::off(), Self::with)
    }

    /// This set and `tool`.
    pub fn with(self, tool: Tool) -> SanitizerConfig {
        SanitizerConfig {
            bits: self.bits | tool.bit(),
        }
    }

    pub fn contains(self, tool: Tool) -> bool {
        self.bits & tool.bit() != 0
    }

    pub fn is_off(self) -> bool {
        self.bits == 0
    }

    /// The tools in the set, in [`Tool::EVERY`] order.
    pub fn tools(self) -> impl Iterator<Item = Tool> {
        Tool::EVERY.into_iter().filter(move |t| self.contains(*t))
    }

    /// A comma list of tool names or `all` (spaces around names are
    /// ignored; an empty list is no tool).
    pub fn parse(text: &str) -> Result<SanitizerConfig, SanitizeParseError> {
        let mut config = Self::off();
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name.eq_ignore_ascii_case("all") {
                config = Tool::ALL.into_iter().fold(config, Self::with);
                continue;
            }
            let tool = Tool::EVERY
                .into_iter()
                .find(|t| name.eq_ignore_ascii_case(t.name()))
                .ok_or_else(|| SanitizeParseError::UnknownTool {
                    name: name.to_string(),
                })?;
            config = config.with(tool);
        }
        Ok(config)
    }

    /// The set `AQUEDUCT_SIM_SANITIZE` names (off when it is unset).
    pub fn from_env() -> Result<SanitizerConfig, SanitizeParseError> {
        match std::env::var(SANITIZE_ENV) {
            Ok(text) => Self::parse(&text),
            Err(_) => Ok(Self::off()),
        }
    }
}

impl fmt::Display for SanitizerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_off() {
            return f.write_str("off");
        }
        for (k, tool) in self.tools().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            f.write_str(tool.name())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_lists_parse() {
        let mem_sync = SanitizerConfig::off()
            .with(Tool::Memcheck)
            .with(Tool::Synccheck);
        assert_eq!(SanitizerConfig::parse("memcheck, synccheck"), Ok(mem_sync));
        assert_eq!(SanitizerConfig::parse("ALL"), Ok(SanitizerConfig::all()));
        assert_eq!(SanitizerConfig::parse(""), Ok(SanitizerConfig::off()));
        assert_eq!(
            SanitizerConfig::all().to_string(),
            "memcheck,racecheck,initcheck,synccheck"
        );
        assert_eq!(mem_sync.to_string(), "memcheck,synccheck");
        let every = SanitizerConfig::all().with(Tool::RacecheckGlobal);
        assert!(!SanitizerConfig::all().contains(Tool::RacecheckGlobal));
        assert_eq!(SanitizerConfig::parse("racecheck-global, all"), Ok(every));
        assert_eq!(SanitizerConfig::parse("all,racecheck-global"), Ok(every));
        assert_eq!(
            every.to_string(),
            "memcheck,racecheck,initcheck,synccheck,racecheck-global"
        );
    }

    #[test]
    fn unknown_tool_is_a_typed_error_listing_the_tools() {
        let err = SanitizerConfig::parse("memcheck,leakcheck").unwrap_err();
        assert_eq!(
            err,
            SanitizeParseError::UnknownTool {
                name: "leakcheck".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "unknown sanitizer tool `leakcheck` (the tools are memcheck, racecheck, initcheck, \
             synccheck, all, racecheck-global)"
        );
    }
}
