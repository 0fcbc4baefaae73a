//! Expected-verdict tables (`expected.csv` of the shared oracle suites): a header
//! `test,COLUMN,...`, then one row per test, its path relative to the suite's `tests/` folder
//! and per column `1` (the condition holds, the test terminates, …), `0`, or nothing (no
//! verdict). Read with the `csv` crate (RFC 4180 quoting, one header), bounded by
//! [`crate::input::read_text`].

use std::path::Path;

/// One test's row: its path and a verdict per column (`None`: none given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The test's path, relative to the suite's `tests/` folder.
    pub test: String,
    /// The verdict of each column of [`Expected::columns`], in order.
    pub verdicts: Vec<Option<bool>>,
    /// The row's line in the file, from 1 (the header is line 1).
    pub line: u64,
}

/// An expected-verdict table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The verdict columns' names (the header without its first field, `test`).
    pub columns: Vec<String>,
    /// The rows, in file order.
    pub rows: Vec<Row>,
}

impl Expected {
    /// Reads and parses the table at `path`; an error names the file (and the line).
    pub fn read(path: &Path) -> Result<Expected, String> {
        let file = path.display().to_string();
        let text = crate::input::read_text(path).map_err(|e| format!("{file}: {e}"))?;
        Expected::parse(&file, &text)
    }

    /// Parses the table `text`, named `file` in errors (`file:line: message`).
    pub fn parse(file: &str, text: &str) -> Result<Expected, String> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let header = reader
            .headers()
            .map_err(|e| format!("{file}:1: {e}"))?
            .clone();
        if header.get(0) != Some("test") {
            return Err(format!(
                "{file}:1: the header starts with `test`, not `{}`",
                header.get(0).unwrap_or("")
            ));
        }
        let columns: Vec<String> = header.iter().skip(1).map(str::to_string).collect();
        // The csv crate's position is where it began skipping blank lines before a record: the
        // record's own line is the first non-blank one from there.
        let lines: Vec<&str> = text.lines().collect();
        let line_of = |pos: Option<&csv::Position>| {
            let mut line = pos.map_or(0, |p| p.line());
            while lines
                .get((line as usize).wrapping_sub(1))
                .is_some_and(|l| l.trim().is_empty())
            {
                line += 1;
            }
            line
        };
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| format!("{file}:{}: {e}", line_of(e.position())))?;
            let line = line_of(record.position());
            if record.iter().all(str::is_empty) {
                continue;
            }
            if record.len() != header.len() {
                return Err(format!(
                    "{file}:{line}: {} fields where the header has {}",
                    record.len(),
                    header.len()
                ));
            }
            let verdicts = record
                .iter()
                .skip(1)
                .map(|v| match v {
                    "1" => Ok(Some(true)),
                    "0" => Ok(Some(false)),
                    "" => Ok(None),
                    other => Err(format!(
                        "{file}:{line}: a verdict is `1`, `0` or nothing, not `{other}`"
                    )),
                })
                .collect::<Result<_, _>>()?;
            rows.push(Row {
                test: record[0].to_string(),
                verdicts,
                line,
            });
        }
        Ok(Expected { columns, rows })
    }

    /// The index of the column named `name`, if there is one.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// Every row with a verdict in column `col`: the test and its verdict.
    pub fn verdicts(&self, col: usize) -> impl Iterator<Item = (&str, bool)> + '_ {
        self.rows
            .iter()
            .filter_map(move |r| Some((r.test.as_str(), r.verdicts.get(col).copied()??)))
    }
}
