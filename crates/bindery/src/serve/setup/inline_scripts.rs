//! Whether an HTML file has an inline script a `Content-Security-Policy` would block: looked for
//! once, when a service with a policy is built from a catalog whose build recorded no script
//! hashes for the file (`script_hashes = true` was off, or the file has none). A `<script>`
//! element without `src` whose type runs (none, a JavaScript type, `module`, `importmap`) and
//! whose content is not blank counts; data blocks (`application/json`, `text/template`) and
//! scripts inside comments do not. A light reader, not a full HTML parser (the build's is
//! html5ever): what it misses is sent as before, and a policy that would break a page is an
//! error at start instead of a blocked script in a browser.

/// Whether `html` holds an inline script that runs.
pub(crate) fn has_inline_script(html: &[u8]) -> bool {
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(found) = find(&lower[at..], b"<") {
        let start = at + found;
        let rest = &lower[start..];
        if rest.starts_with(b"<!--") {
            at = start + find(rest, b"-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        if !rest.starts_with(b"<script")
            || !rest.get(7).is_some_and(|next| b" \t\r\n/>".contains(next))
        {
            at = start + 1;
            continue;
        }
        let Some(tag_end) = find(rest, b">") else {
            return false;
        };
        let tag = &rest[7..tag_end];
        let body_start = start + tag_end + 1;
        let body_end =
            find(&lower[body_start..], b"</script").map_or(lower.len(), |end| body_start + end);
        if attribute(tag, b"src").is_none()
            && attribute(tag, b"type").is_none_or(runs)
            && !html[body_start..body_end]
                .iter()
                .all(u8::is_ascii_whitespace)
        {
            return true;
        }
        at = body_end;
    }
    false
}

/// Whether a `<script type>` runs (rather than being a data block).
fn runs(kind: &[u8]) -> bool {
    let kind = kind.trim_ascii();
    kind.is_empty()
        || kind == b"module"
        || kind == b"importmap"
        || kind.ends_with(b"javascript")
        || kind.ends_with(b"ecmascript")
        || kind == b"text/jscript"
}

/// The value of `name` in a tag's attributes (lowercased text), quoted or not.
fn attribute<'a>(tag: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let mut rest = tag;
    loop {
        rest = rest.trim_ascii_start();
        let name_end = rest
            .iter()
            .position(|byte| b" \t\r\n=/>".contains(byte))
            .unwrap_or(rest.len());
        if name_end == 0 {
            if rest.is_empty() {
                return None;
            }
            rest = &rest[1..];
            continue;
        }
        let found = &rest[..name_end];
        rest = rest[name_end..].trim_ascii_start();
        let value = if let Some(after) = rest.strip_prefix(b"=") {
            let after = after.trim_ascii_start();
            let (value, left) = match after.first() {
                Some(quote @ (b'"' | b'\'')) => {
                    let close = after[1..]
                        .iter()
                        .position(|byte| byte == quote)
                        .map_or(after.len(), |end| end + 1);
                    (&after[1..close], after.get(close + 1..).unwrap_or_default())
                }
                _ => {
                    let end = after
                        .iter()
                        .position(|byte| byte.is_ascii_whitespace())
                        .unwrap_or(after.len());
                    (&after[..end], &after[end..])
                }
            };
            rest = left;
            value
        } else {
            &[][..]
        };
        if found == name {
            return Some(value);
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::has_inline_script;

    #[test]
    fn inline_scripts_that_run_are_found_and_the_rest_is_not() {
        for html in [
            "<script>alert(1)</script>",
            "<SCRIPT TYPE='module'>import './a.js'</SCRIPT>",
            "<script type=\"importmap\">{\"imports\":{}}</script>",
            "<head><script defer>x()</script>",
            "<script type=text/javascript>x()</script>",
        ] {
            assert!(has_inline_script(html.as_bytes()), "{html}");
        }
        for html in [
            "<script src=\"/app.js\"></script>",
            "<script type=\"module\" src='/a.js' integrity=\"sha384-x\"></script>",
            "<script type=\"application/json\">{\"a\":1}</script>",
            "<script>  \n </script>",
            "<!-- <script>alert(1)</script> -->",
            "<p>no scripts</p><noscript>hi</noscript>",
            "<scripts>not a script</scripts>",
        ] {
            assert!(!has_inline_script(html.as_bytes()), "{html}");
        }
    }
}
