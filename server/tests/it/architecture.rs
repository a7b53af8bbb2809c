//! The shape of `server/src`, as ARCHITECTURE.md draws it: no module imports one above
//! it, and no import cycle, between the server's layers or between the files of one
//! folder. Read from the source: every `use` and every path through `crate::`,
//! `super::` or `self::`, outside test code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The server's top-level modules, lowest first: a module may import only modules
/// before it. (ARCHITECTURE.md's code map says why each sits where it does.)
const LAYERS: &[&str] = &[
    "config",
    "shutdown",
    "secret",
    "password",
    "lease",
    "limits",
    "proxy",
    "rating",
    "i18n",
    "errors",
    "clock",
    "computer",
    "metrics",
    "store",
    "views",
    "accounts",
    "mail",
    "cluster",
    "services",
    "room",
    "registry",
    "tournament",
    "endings",
    "moderation",
    "housekeeping",
    "seek",
    "state",
    "connection",
    "api",
];

/// A module: its path from the crate root, and its file.
#[derive(Debug)]
struct Module {
    /// `["room", "seats"]` for `src/room/seats.rs`; empty for the crate root.
    path: Vec<String>,
    /// Its source without comments, string literals and inline test modules.
    code: String,
}

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every module of the library, test-only files left out.
fn modules() -> Vec<Module> {
    let mut files = Vec::new();
    collect(&source_dir(), &mut files);
    let tests_only = test_only_files(&files);
    files
        .into_iter()
        .filter(|file| !file.ends_with("main.rs") && !tests_only.contains(file))
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            Module {
                path: module_path(&file),
                code: without_tests(&strip(&text)),
            }
        })
        .collect()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The path of the module whose file is `file`.
fn module_path(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(source_dir()).unwrap();
    let mut path: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if path
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        path.pop();
    }
    path
}

/// The files declared as `#[cfg(test)] mod name;`: test code, which may import what it
/// tests.
fn test_only_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut tests = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            if pair[0] == "#[cfg(test)]"
                && let Some(name) = pair[1]
                    .trim_start_matches("pub(crate) ")
                    .strip_prefix("mod ")
                    .and_then(|rest| rest.strip_suffix(';'))
            {
                let dir = if file.ends_with("mod.rs") || file.ends_with("lib.rs") {
                    file.parent().unwrap().to_owned()
                } else {
                    file.with_extension("")
                };
                tests.insert(dir.join(format!("{name}.rs")));
                // A test module's own modules are test code too.
                let under = dir.join(name);
                tests.extend(files.iter().filter(|f| f.starts_with(&under)).cloned());
            }
        }
    }
    tests
}

/// `text` without comments and without the contents of string and character literals.
fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str("\"\"");
            }
            // A character literal (not a lifetime, which has no closing quote).
            '\'' if is_char_literal(chars.clone()) => {
                // Past the escaped character, if any, to the closing quote.
                if chars.next() == Some('\\') {
                    chars.next();
                }
                chars.by_ref().find(|&c| c == '\'');
                out.push_str("''");
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether what follows an opening `'` closes a character literal: `x'`, or an escape
/// such as `\'` or `\u{7b}'`.
fn is_char_literal(mut ahead: impl Iterator<Item = char>) -> bool {
    match ahead.next() {
        Some('\\') => ahead.skip(1).take(8).any(|c| c == '\''),
        Some(_) => ahead.next() == Some('\''),
        None => false,
    }
}

/// `code` without its inline test modules (`#[cfg(test)] mod tests { … }`), wherever
/// they are: what follows one is read again. (`strip` has taken out the comments and
/// literals, so every brace left is code's.)
fn without_tests(code: &str) -> String {
    let mut kept = String::new();
    let mut lines = code.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.contains('{'))
        {
            let mut depth = 0i32;
            for inside in lines.by_ref() {
                depth += braces(inside);
                if depth <= 0 {
                    break;
                }
            }
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

/// The braces `line` opens, less those it closes.
fn braces(line: &str) -> i32 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Every path a module names through `crate::`, `super::` or `self::`, in `use`
/// statements (their groups spelled out) and in code.
fn paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        expand(
            "",
            &rest[..end].replace(char::is_whitespace, ""),
            &mut found,
        );
        rest = &rest[end..];
    }
    for root in ["crate::", "super::", "self::"] {
        let mut rest = code;
        while let Some(at) = rest.find(root) {
            let before = rest[..at].chars().last();
            let path: String = rest[at..]
                .chars()
                .take_while(|&c| c.is_alphanumeric() || c == '_' || c == ':')
                .collect();
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                found.push(path.trim_end_matches(':').to_owned());
            }
            rest = &rest[at + root.len()..];
        }
    }
    found
}

/// Spells out the use tree `tree` under `prefix` into `found`.
fn expand(prefix: &str, tree: &str, found: &mut Vec<String>) {
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        found.push(format!("{prefix}{path}"));
        return;
    };
    let head = format!("{prefix}{}", &tree[..open]);
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&head, &inner[start..i], found);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < inner.len() {
        expand(&head, &inner[start..], found);
    }
}

/// The module a path from `module` leads into: the longest known module its segments
/// name. `None` for a path outside the crate.
fn resolve(module: &[String], path: &str, known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut segments = path.split("::").filter(|s| !s.is_empty());
    let mut at: Vec<String> = match segments.next()? {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        _ => return None,
    };
    for segment in segments {
        if segment == "super" {
            at.pop();
            continue;
        }
        let mut deeper = at.clone();
        deeper.push(segment.to_owned());
        if known.contains(&deeper) {
            at = deeper;
        } else {
            break;
        }
    }
    Some(at)
}

/// Every import edge between two modules.
fn imports() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules();
    let known: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    let mut edges = BTreeMap::new();
    for module in &modules {
        let targets: BTreeSet<Vec<String>> = paths(&module.code)
            .iter()
            .filter_map(|path| resolve(&module.path, path, &known))
            .filter(|target| *target != module.path)
            .collect();
        edges.insert(module.path.clone(), targets);
    }
    edges
}

fn name(path: &[String]) -> String {
    if path.is_empty() {
        "crate".to_owned()
    } else {
        path.join("::")
    }
}

#[test]
fn no_module_imports_one_above_it() {
    let rank = |top: &str| LAYERS.iter().position(|layer| *layer == top);
    let mut wrong = Vec::new();
    for (module, targets) in imports() {
        if module.is_empty() {
            // The crate's root puts the layers together: it may import any.
            continue;
        }
        let from = rank(&module[0]);
        assert!(from.is_some(), "{} has no layer in LAYERS", module[0]);
        for target in targets {
            let above = match target.first() {
                // The root, or an ancestor of the module: above it.
                None => true,
                Some(_) if module.starts_with(&target) => true,
                Some(top) if *top == module[0] => false,
                Some(top) => rank(top) >= from,
            };
            if above {
                wrong.push(format!("{} imports {}", name(&module), name(&target)));
            }
        }
    }
    assert!(wrong.is_empty(), "imports upwards:\n{}", wrong.join("\n"));
}

/// ARCHITECTURE.md's table of the server's modules lists `LAYERS`, in their order: the
/// map outsiders read is the one enforced here.
#[test]
fn the_architecture_s_table_is_the_list_of_layers() {
    let doc = source_dir().join("../../ARCHITECTURE.md");
    let doc = std::fs::read_to_string(&doc).unwrap();
    let table = doc
        .split("### The server's modules")
        .nth(1)
        .expect("ARCHITECTURE.md has the server's modules");
    // A row is `| layer | `module` | what it owns |`; the layer is named on its first.
    let listed: Vec<&str> = table
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| line.split('|').nth(2))
        .filter_map(|cell| cell.trim().strip_prefix('`')?.strip_suffix('`'))
        .collect();
    assert_eq!(listed, LAYERS, "ARCHITECTURE.md's table against LAYERS");
}

#[test]
fn no_import_cycle() {
    let edges = imports();
    // Depth-first search for a back edge; its path is the cycle.
    fn visit(
        node: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        done: &mut BTreeSet<Vec<String>>,
        path: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|on| on == node) {
            let mut cycle: Vec<String> = path[at..].iter().map(|m| name(m)).collect();
            cycle.push(name(node));
            return Some(cycle);
        }
        if !done.insert(node.clone()) {
            return None;
        }
        path.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in edges.keys() {
        if let Some(cycle) = visit(module, &edges, &mut done, &mut Vec::new()) {
            panic!("an import cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_checker_reads_use_trees_and_paths() {
    let mut found = Vec::new();
    expand(
        "",
        "crate::room::{Answer,kind::Rooms,protocol::{Event,Key}}",
        &mut found,
    );
    assert_eq!(
        found,
        [
            "crate::room::Answer",
            "crate::room::kind::Rooms",
            "crate::room::protocol::Event",
            "crate::room::protocol::Key",
        ]
    );
    let code =
        strip("use super::seat::Seat; // crate::api\nlet x = \"crate::api\"; crate::store::now();");
    let paths = paths(&code);
    assert!(paths.contains(&"super::seat::Seat".to_owned()), "{paths:?}");
    assert!(paths.contains(&"crate::store::now".to_owned()), "{paths:?}");
    assert!(!paths.iter().any(|p| p.contains("api")), "{paths:?}");
    let known: BTreeSet<Vec<String>> = [
        vec!["room".to_owned()],
        vec!["room".to_owned(), "seat".to_owned()],
    ]
    .into_iter()
    .collect();
    let seats = ["room".to_owned(), "seats".to_owned()];
    assert_eq!(
        resolve(&seats, "super::seat::Seat", &known),
        Some(vec!["room".to_owned(), "seat".to_owned()])
    );
    assert_eq!(
        resolve(&seats, "super::Event", &known),
        Some(vec!["room".to_owned()])
    );
    assert_eq!(resolve(&seats, "punct_rules::Color", &known), None);
}

#[test]
fn the_checker_reads_past_an_inline_test_module() {
    let code = strip(
        "use crate::store::Store;\n#[cfg(test)]\nmod tests {\n    use crate::api::x;\n    fn f<'a>() { if '{' != '\\'' { } }\n}\n\nuse crate::room::Room;\n",
    );
    let paths = paths(&without_tests(&code));
    assert!(
        paths.contains(&"crate::store::Store".to_owned()),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"crate::room::Room".to_owned()),
        "read after the tests: {paths:?}"
    );
    assert!(!paths.iter().any(|p| p.contains("api")), "{paths:?}");
}
