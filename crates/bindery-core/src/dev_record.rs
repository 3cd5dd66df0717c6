//! The record `bindery_codegen::Frontend::vite` writes beside a Vite build, and a debug build
//! served beside Vite's dev server (bindery's `dev` feature, `VITE_DEV_SERVER`) reads: the module
//! scripts each HTML entry loads (Vite's manifest names only the chunk built from them) and
//! whether the front end uses React's plugin. One format, written and read here.
//!
//! A line per fact, tab-separated, `#` starting a comment: `react true`, and
//! `entry index.html src/main.js` for each HTML entry with its modules, as paths from Vite's root.

/// Where the record sits, from the build's output folder: a dot folder, never embedded.
pub const PATH: &str = ".vite/bindery-dev.tsv";

/// What a record says.
///
/// ```
/// use bindery_core::dev_record::Record;
/// let record = Record {
///     react: true,
///     entries: vec![("index.html".into(), vec!["src/main.tsx".into()])],
/// };
/// let text = record.to_text();
/// assert!(text.ends_with("react\ttrue\nentry\tindex.html\tsrc/main.tsx\n"));
/// assert_eq!(Record::parse(&text), record);
/// ```
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Record {
    /// Whether the Vite config uses `@vitejs/plugin-react`: the page then needs its preamble.
    pub react: bool,
    /// Each HTML entry with the module scripts it loads, as paths from Vite's root.
    pub entries: Vec<(String, Vec<String>)>,
}

impl Record {
    /// The record's text. An entry with no module, or a name holding a tab or a line break,
    /// which the format cannot carry, is left out.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# bindery_codegen::Frontend: what Vite's dev server loads for each HTML entry \
             (bindery's debug builds with VITE_DEV_SERVER read it)\n",
        );
        if self.react {
            text.push_str("react\ttrue\n");
        }
        for (html, modules) in &self.entries {
            let fields: Vec<&str> = std::iter::once(html.as_str())
                .chain(modules.iter().map(String::as_str))
                .collect();
            if modules.is_empty()
                || fields
                    .iter()
                    .any(|field| field.contains(['\t', '\n', '\r']))
            {
                continue;
            }
            text.push_str("entry\t");
            text.push_str(&fields.join("\t"));
            text.push('\n');
        }
        text
    }

    /// A record's text read back; a line it does not know is skipped.
    pub fn parse(text: &str) -> Record {
        let mut record = Record::default();
        record.add(text);
        record
    }

    /// Adds what another record's text says (a catalog of several folders reads one per folder).
    pub fn add(&mut self, text: &str) {
        for line in text.lines().filter(|line| !line.starts_with('#')) {
            let mut fields = line.split('\t');
            match (fields.next(), fields.next()) {
                (Some("react"), Some("true")) => self.react = true,
                (Some("entry"), Some(html)) => {
                    self.entries
                        .push((html.to_owned(), fields.map(str::to_owned).collect()));
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Record;

    #[test]
    fn what_the_format_cannot_carry_is_left_out_and_unknown_lines_are_skipped() {
        let record = Record {
            react: false,
            entries: vec![
                ("a.html".into(), vec!["src/a.js".into()]),
                ("no-module.html".into(), vec![]),
                ("tab\there.html".into(), vec!["src/b.js".into()]),
                ("c.html".into(), vec!["src/line\nbreak.js".into()]),
            ],
        };
        let text = record.to_text();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines, ["entry\ta.html\tsrc/a.js"]);
        let read =
            Record::parse("# a comment\nreact\tfalse\nfuture\tline\nentry\ta.html\tsrc/a.js\n");
        assert_eq!(read, Record::parse(&text));
    }
}
