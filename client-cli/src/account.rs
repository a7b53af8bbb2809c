//! The session file: the account this user is signed in to on each server, so that
//! `punct play` and `punct watch` act for it after one `punct login`.
//!
//! A JSON object keyed by server URL, each `{"username","token","expires_at"}`, at
//! `$PUNCT_CONFIG_DIR/sessions.json`, else `$XDG_CONFIG_HOME/punct/sessions.json`, else
//! `~/.config/punct/sessions.json`. The token is a secret (whoever has it acts for the
//! account until it is signed out): the file is readable by its owner only. Passwords are
//! never written anywhere.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers};
use punct_protocol::Session;

/// The session file in a directory.
#[derive(Clone, Debug)]
pub struct SessionBook {
    /// Where the file is (it need not exist yet).
    path: PathBuf,
}

impl SessionBook {
    /// The session file in `dir`.
    pub fn in_dir(dir: impl Into<PathBuf>) -> SessionBook {
        SessionBook {
            path: dir.into().join("sessions.json"),
        }
    }

    /// The default directory (see the module documentation); `None` without a home.
    pub fn default_dir() -> Option<PathBuf> {
        let env = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        env("XDG_CONFIG_HOME")
            .or_else(|| env("HOME").map(|home| home.join(".config")))
            .map(|config| config.join("punct"))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every saved session, by server; none when the file does not exist.
    fn load(&self) -> anyhow::Result<BTreeMap<String, Session>> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("the session file {} is not valid", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", self.path.display())),
        }
    }

    /// The session saved for `server`, if any.
    pub fn find(&self, server: &str) -> anyhow::Result<Option<Session>> {
        Ok(self.load()?.remove(server))
    }

    /// Saves the session of `server`, replacing any other.
    pub fn save(&self, server: &str, session: Session) -> anyhow::Result<()> {
        let mut sessions = self.load()?;
        sessions.insert(server.to_owned(), session);
        self.write(&sessions)
    }

    /// Forgets the session of `server`; answers it, if there was one.
    pub fn forget(&self, server: &str) -> anyhow::Result<Option<Session>> {
        let mut sessions = self.load()?;
        let gone = sessions.remove(server);
        if gone.is_some() {
            self.write(&sessions)?;
        }
        Ok(gone)
    }

    /// Writes the file whole: to a temporary file only its owner may read, then renamed
    /// over the old one, so a crash never leaves half a file and no other user ever
    /// sees a token.
    fn write(&self, sessions: &BTreeMap<String, Session>) -> anyhow::Result<()> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let temp = self.path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(sessions)?;
        write_private(&temp, text.as_bytes())
            .with_context(|| format!("cannot write {}", temp.display()))?;
        std::fs::rename(&temp, &self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// Creates `dir` and its parents; a directory it creates is its owner's only.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Writes `bytes` to a new file at `path` that only its owner may read and write.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let _ = std::fs::remove_file(path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Asks for a line on standard error and reads it from standard input, without its
/// line ending.
pub fn prompt(question: &str) -> anyhow::Result<String> {
    eprint!("{question}");
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read standard input")?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// Asks for a password: on a terminal it is typed without echo (in raw mode, always
/// left again); otherwise it is the next line of standard input, for scripts.
pub fn prompt_password(question: &str) -> anyhow::Result<String> {
    if !std::io::stdin().is_terminal() {
        return prompt(question);
    }
    eprint!("{question}");
    crossterm::terminal::enable_raw_mode().context("cannot read the password")?;
    let typed = read_hidden();
    let _ = crossterm::terminal::disable_raw_mode();
    eprintln!();
    typed
}

/// The keys typed until Enter, shown as nothing.
fn read_hidden() -> anyhow::Result<String> {
    let mut password = String::new();
    loop {
        let Event::Key(key) = crossterm::event::read()? else {
            continue;
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        match key.code {
            KeyCode::Enter => return Ok(password),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                anyhow::bail!("cancelled")
            }
            KeyCode::Esc => anyhow::bail!("cancelled"),
            KeyCode::Backspace => {
                password.pop();
            }
            KeyCode::Char(c) => password.push(c),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(token: &str) -> Session {
        Session {
            username: "anna".into(),
            token: token.into(),
            expires_at: 1,
        }
    }

    #[test]
    fn a_session_is_kept_per_server_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let book = SessionBook::in_dir(dir.path().join("nested"));
        assert_eq!(book.find("http://a:1").unwrap(), None);
        book.save("http://a:1", session("old")).unwrap();
        book.save("http://b:1", session("other")).unwrap();
        book.save("http://a:1", session("new")).unwrap();
        assert_eq!(book.find("http://a:1").unwrap(), Some(session("new")));
        assert_eq!(book.forget("http://a:1").unwrap(), Some(session("new")));
        assert_eq!(book.forget("http://a:1").unwrap(), None);
        assert_eq!(book.find("http://b:1").unwrap(), Some(session("other")));
    }

    #[cfg(unix)]
    #[test]
    fn the_session_file_is_its_owner_s_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let book = SessionBook::in_dir(dir.path().join("punct"));
        book.save("http://a:1", session("secret")).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(book.path()), 0o600);
        assert_eq!(mode(&dir.path().join("punct")), 0o700);
    }
}
