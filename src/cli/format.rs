//! `--format`: one argument type for every command. Each command offers the
//! formats its report has, each with the help line that command gives it.

use std::ffi::OsStr;

use crate::report::Format;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// Parses `--format NAME` into a [`Format`] among those a command offers.
/// An empty help line shows the name alone.
#[derive(Clone, Copy)]
pub struct Offered(pub &'static [(Format, &'static str)]);

impl Offered {
    fn possible(&self) -> impl Iterator<Item = PossibleValue> + '_ {
        self.0.iter().map(|&(format, help)| {
            let value = PossibleValue::new(format.name());
            if help.is_empty() {
                value
            } else {
                value.help(help)
            }
        })
    }
}

impl TypedValueParser for Offered {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Format, clap::Error> {
        let name = PossibleValuesParser::new(self.possible()).parse_ref(cmd, arg, value)?;
        self.0
            .iter()
            .map(|&(format, _)| format)
            .find(|format| format.name() == name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.possible()))
    }
}

/// Table and JSON, without help lines: the offer of most reports.
pub const TABLE_JSON: Offered = Offered(&[(Format::Table, ""), (Format::Json, "")]);

/// The error for a format a command's `--format` does not offer: the
/// parser above never lets one through, so this is a bug, said plainly.
pub fn unoffered(format: Format) -> anyhow::Error {
    anyhow::anyhow!("--format {} is not offered by this command", format.name())
}
