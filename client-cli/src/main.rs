//! The `punct` command: `punct rules …` analyses positions with the rules engine.
//!
//! Every `rules` subcommand replays a game record (`--record FILE`, `--record -` for
//! standard input, none for the start) and looks at the position it leads to. A bad record
//! line is reported with its number on standard error, with exit status 2.
//!
//! `punct rules match` plays the computer against itself from the start instead.
//!
//! `punct play`, `punct watch`, `punct bot` and `punct tournament` talk to a server (see README.md beside
//! this crate), as the account `punct login` signed in to when there is one; their work
//! is in the `punct_cli` library.

use std::collections::HashSet;
use std::io::{self, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use punct_cli::account::{self, SessionBook};
use punct_cli::seats::{SavedSeat, SeatBook, SeatRequest};
use punct_cli::{bot as online_bot, language, lobby, script, tournament, tui};
use punct_client::{Client, Entry, SeekOptions, Server};
use punct_engine::Level;
use punct_engine::arena::{self, MatchConfig, Player, Tally};
use punct_engine::sprt::{self, Sprt, Verdict};
use punct_engine::{Engine, Limits, puzzle};
use punct_protocol::{
    CreateRoom, CreateTournament, ErrorCode, SeatChoice, SeekGame, TimeControl, TournamentFormat,
    Visibility,
};
use punct_rules::{Diagram, DiagramStyle, Game, Turn, Variant, perft};

/// Play and analyse PÜNCT.
#[derive(Parser, Debug)]
#[command(name = "punct", version, about)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The top-level subcommands.
#[derive(Subcommand, Debug)]
enum Command {
    /// Ask the rules engine about a position.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Play on a server: the lobby, a room, or a script of turns.
    Play(PlayArgs),
    /// Watch a room on a server.
    Watch(WatchArgs),
    /// Let the computer play a seat on a server.
    Bot(BotArgs),
    /// Sign in to a server (or register with --register); play, watch and bot then act
    /// for the account.
    Login(LoginArgs),
    /// Sign out of a server and forget the session.
    Logout(ServerArgs),
    /// Print the username signed in to on a server, or "not signed in".
    Whoami(ServerArgs),
    /// List your unfinished games on a server (signed in with punct login), those
    /// waiting for your move first; punct play --room ROOM continues one.
    Games(ServerArgs),
    /// List a server's tournaments: upcoming, running and lately finished, each with its
    /// id for punct tournament.
    Tournaments(ServerArgs),
    /// Look at, join, withdraw from or play in one tournament.
    #[command(subcommand)]
    Tournament(TournamentCommand),
}

/// `punct tournament …`: one tournament, by its id (from punct tournaments).
#[derive(Subcommand, Debug)]
enum TournamentCommand {
    /// Create a tournament (signed in; a server may let only its moderators), and print
    /// its id and settings.
    Create(TournamentCreateArgs),
    /// Print the tournament: its settings, standings, and every round's games with their
    /// rooms and results.
    Show(TournamentArgs),
    /// Enter the tournament with the account signed in to (punct login), before it
    /// starts.
    Join(TournamentArgs),
    /// Withdraw from the tournament: before the start the place is free again; after
    /// it, you are paired no more and a game under way is lost.
    Withdraw(TournamentArgs),
    /// Wait for your next game in the tournament (signed in), then play it in the
    /// interactive room view, or with --script as punct play --script does.
    Play(TournamentPlayArgs),
}

/// Which tournament, on which server.
#[derive(Args, Debug)]
struct TournamentArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// The tournament's id.
    id: String,
}

/// `punct tournament create`: what `POST /api/tournaments` takes, as flags.
#[derive(Args, Debug)]
struct TournamentCreateArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// Its name (1 to 60 characters).
    #[arg(long)]
    name: String,
    /// How players are paired: a Swiss (with --rounds), an arena (with --lasts), or a
    /// single or double round robin.
    #[arg(long, value_parser = format_parser())]
    format: TournamentFormat,
    /// The variant of its games.
    #[arg(long, ignore_case = true, value_parser = variant_parser(), default_value = "standard")]
    variant: Variant,
    /// The time control of its games, as BASE+INC (such as 5m+2s, or 300+2 in seconds), or
    /// days per move (1d, 2d, 3d, 5d, 7d or 14d: by correspondence, every game of a round
    /// robin at once); none without it (not for an arena).
    #[arg(long, value_name = "BASE+INC|DAYSd", value_parser = lobby::parse_time_control)]
    clock: Option<TimeControl>,
    /// Its games change the players' ratings.
    #[arg(long)]
    rated: bool,
    /// How long from now it starts (such as 10m, or 1h30m).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = humantime::parse_duration)]
    starts_in: Duration,
    /// An arena: how long it lasts from its start (such as 1h).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    lasts: Option<Duration>,
    /// A Swiss: how many rounds (1 to 20).
    #[arg(long)]
    rounds: Option<u32>,
    /// The fewest players it starts with; fewer at the start cancel it.
    #[arg(long, default_value_t = 2)]
    min_players: u32,
    /// The most players who may join.
    #[arg(long, default_value_t = 64)]
    max_players: u32,
}

impl TournamentCreateArgs {
    /// The request, for a tournament starting `starts_in` after `now` (milliseconds since
    /// the Unix epoch).
    fn request(&self, now: i64) -> CreateTournament {
        let millis = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let starts_at = now.saturating_add(millis(self.starts_in));
        CreateTournament {
            name: self.name.clone(),
            format: self.format,
            variant: self.variant,
            clock: self.clock,
            rated: self.rated,
            starts_at,
            ends_at: self.lasts.map(|d| starts_at.saturating_add(millis(d))),
            rounds: self.rounds,
            min_players: self.min_players,
            max_players: self.max_players,
        }
    }
}

/// `punct tournament play`.
#[derive(Args, Debug)]
struct TournamentPlayArgs {
    /// The tournament.
    #[command(flatten)]
    tournament: TournamentArgs,
    /// Play the turns of FILE (`-`: standard input) and print events as JSON lines,
    /// instead of the interactive app.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
}

/// `punct login`.
#[derive(Args, Debug)]
struct LoginArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// The account's username; asked for without it.
    #[arg(long)]
    username: Option<String>,
    /// Register a new account instead of signing in to one.
    #[arg(long)]
    register: bool,
}

/// Where the server is.
#[derive(Args, Debug)]
struct ServerArgs {
    /// The server, as http://HOST:PORT or, behind a TLS proxy, https://HOST[:PORT][/PATH];
    /// for a cluster, its load balancer or several nodes, comma-separated (a node that
    /// goes away is left for the next).
    #[arg(long, env = "PUNCT_SERVER", value_delimiter = ',', required = true)]
    server: Vec<Server>,
    /// A PEM file of certificates to trust besides the system's, for an https:// server
    /// whose certificate a private authority signed.
    #[arg(long, env = "PUNCT_CA_CERT", value_name = "FILE")]
    ca_cert: Option<PathBuf>,
    /// The longest wait for any answer from the server (such as 10s or 500ms); a
    /// stalled server is given up on, never waited for forever.
    #[arg(long, env = "PUNCT_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    timeout: Duration,
    /// The directory of the session file kept by `punct login`
    /// [default: $XDG_CONFIG_HOME/punct].
    #[arg(long, env = "PUNCT_CONFIG_DIR", value_name = "DIR")]
    config_dir: Option<PathBuf>,
    /// The language of the server's messages, such as its refusals (en, de, fr, it, nl,
    /// es, pl, ru or cs) [default: the locale's, from LC_ALL, LC_MESSAGES or LANG].
    #[arg(long, value_name = "CODE")]
    lang: Option<String>,
}

impl ServerArgs {
    /// A client of the server, signed in with the session `punct login` saved for it if
    /// there is one; with the account's username.
    fn client(&self) -> anyhow::Result<(Client, Option<String>)> {
        let client = self.anonymous()?;
        let Some(book) = self.sessions() else {
            return Ok((client, None));
        };
        Ok(match book.find(&client.server().to_string())? {
            Some(session) => (client.with_session(&session.token), Some(session.username)),
            None => (client, None),
        })
    }

    /// A client signed in with the saved session, and its username; an error that says
    /// to sign in when no session is saved.
    fn player(&self) -> anyhow::Result<(Client, String)> {
        match self.client()? {
            (client, Some(username)) => Ok((client, username)),
            (_, None) => anyhow::bail!("tournaments are for signed-in players: punct login first"),
        }
    }

    /// The session file, if there is a place for one.
    fn sessions(&self) -> Option<SessionBook> {
        self.config_dir
            .clone()
            .or_else(SessionBook::default_dir)
            .map(SessionBook::in_dir)
    }

    /// A client of the server, not signed in: every request times out, so a stalled
    /// server never freezes the terminal.
    fn anonymous(&self) -> anyhow::Result<Client> {
        let (first, others) = self.server.split_first().expect("clap requires one");
        let mut builder = Client::builder(first.clone())
            .also(others.iter().cloned())
            .timeout(self.timeout)
            .connect_timeout(self.timeout);
        let var = |name: &str| std::env::var(name).ok();
        if let Some(language) = language::accept_language(self.lang.as_deref(), var) {
            builder = builder.language(language);
        }
        if let Some(path) = &self.ca_cert {
            let pem = std::fs::read(path)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
            builder = builder
                .add_root_certificates(&pem)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
        Ok(builder.build()?)
    }
}

/// How a player gets a seat.
#[derive(Args, Debug)]
struct SeatArgs {
    /// The room to join. Without --token, a token from the seat file is used, or the
    /// room's free seat is taken.
    #[arg(long, conflicts_with = "create")]
    room: Option<String>,
    /// The seat token (from creating the room or taking the seat).
    #[arg(long, requires = "room")]
    token: Option<String>,
    /// Create a room of this variant and take a seat in it.
    #[arg(long, ignore_case = true, value_parser = variant_parser())]
    create: Option<Variant>,
    /// With --create: the seat to take.
    #[arg(long, value_enum, default_value = "random", requires = "create")]
    color: ColorChoice,
    /// With --create: a time control, as BASE+INC (such as 5m+2s, or 300+2 in
    /// seconds), or days per move for a correspondence game (1d, 2d, 3d, 5d, 7d or
    /// 14d); none without it.
    #[arg(long, value_name = "BASE+INC|DAYSd", requires = "create", value_parser = lobby::parse_time_control)]
    clock: Option<TimeControl>,
    /// With --create: keep the room out of the lobby.
    #[arg(long, requires = "create")]
    private: bool,
    /// With --create: play the computer at this level (1, the easiest, to 4); the server
    /// takes the other seat at once.
    #[arg(long, value_name = "LEVEL", requires = "create", value_parser = clap::value_parser!(u8).range(1..=4))]
    computer: Option<u8>,
    /// The seat file that keeps seat tokens [default: $XDG_DATA_HOME/punct/seats.json].
    #[arg(long, env = "PUNCT_SEATS", value_name = "FILE")]
    seats: Option<PathBuf>,
    /// The name to play under, shown to everyone, when not signed in (a signed-in player
    /// plays under their username).
    #[arg(long)]
    name: Option<String>,
    /// With --create: a rated game, which changes both players' ratings (signed in
    /// only, against another signed-in player).
    #[arg(long, requires = "create")]
    rated: bool,
}

/// `punct play`.
#[derive(Args, Debug)]
struct PlayArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// The seat.
    #[command(flatten)]
    seat: SeatArgs,
    /// Play the turns of FILE (`-`: standard input) and print events as JSON lines,
    /// instead of the interactive app. Needs --room, --create or --seek.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Quick pairing: wait for someone who wants the same game, then play it. The clock
    /// as MINUTES+INC (`5+3`: five minutes, three seconds a turn), or with units
    /// (`90s+1s`), or days per move (`3d`).
    #[arg(long, value_name = "MIN+INC|DAYSd", conflicts_with_all = ["room", "create"], value_parser = lobby::parse_seek_clock)]
    seek: Option<TimeControl>,
    /// With --seek: the variant.
    #[arg(long, ignore_case = true, value_parser = variant_parser(), default_value = "standard", requires = "seek")]
    variant: Variant,
    /// With --seek: a rated game (signed in only).
    #[arg(long, requires = "seek")]
    seek_rated: bool,
    /// With --seek --seek-rated: how far, either way, the opponent's rating may be.
    #[arg(long, requires = "seek_rated")]
    range: Option<u32>,
}

/// `punct watch`.
#[derive(Args, Debug)]
struct WatchArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// The room to watch.
    #[arg(long)]
    room: String,
    /// Print events as JSON lines until the game ends, instead of the interactive app.
    #[arg(long)]
    json: bool,
}

/// `punct bot`.
#[derive(Args, Debug)]
struct BotArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// The seat.
    #[command(flatten)]
    seat: SeatArgs,
    /// How strong: random, greedy, or 1 to 5 (5 is the strongest).
    #[arg(long, default_value_t = Level::strongest())]
    level: Level,
    /// Thinking time per turn, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    ms_per_turn: u64,
    /// Enter this tournament with the account signed in to (punct login), and play
    /// every game it is paired in until the tournament ends, instead of one seat.
    #[arg(long, value_name = "ID", conflicts_with_all = ["room", "create"])]
    tournament: Option<String>,
}

/// The seat asked for with --create.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ColorChoice {
    /// White.
    White,
    /// Black.
    Black,
    /// Either, by chance.
    Random,
}

/// `punct rules …`: questions about the position after a record.
#[derive(Subcommand, Debug)]
enum RulesCommand {
    /// Print every legal turn, one per line, in canonical notation (nothing once the game
    /// is over).
    Moves(PositionArgs),
    /// Count the sequences of exactly DEPTH legal turns.
    Perft {
        /// Which position.
        #[command(flatten)]
        position: PositionArgs,
        /// Number of turns in each sequence.
        #[arg(long)]
        depth: u32,
        /// Print the count after each first turn (`TURN COUNT`) before the total.
        #[arg(long)]
        divide: bool,
        /// Count on this many threads, each taking the next first turn not yet counted.
        #[arg(long, default_value_t = NonZeroUsize::MIN)]
        threads: NonZeroUsize,
    },
    /// Print `to-move white`, `to-move black` or the result of the game.
    Status(PositionArgs),
    /// Draw the board, the reserves and the side to move or the result.
    Show(PositionArgs),
    /// Play the engine against itself from the start: colours alternate, each pair of
    /// games shares a random opening. Prints each game, then wins, losses, draws and the
    /// average time per turn of each side.
    Match(MatchArgs),
    /// Let the computer think about the position for a while: prints the turn it
    /// chooses, its score, the depth it reached and the positions it looked at.
    Think {
        /// Which position.
        #[command(flatten)]
        position: PositionArgs,
        /// Which engine: random, greedy, or a level 1 to 5 (5 is the strongest).
        #[arg(long, default_value_t = Level::strongest())]
        level: Level,
        /// Thinking time, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        ms: u64,
        /// Search this many plies deep instead, however long it takes (the same turn on
        /// every machine, and in the web page's engine).
        #[arg(long, conflicts_with = "ms")]
        depth: Option<u32>,
    },
    /// Play engine games and print the puzzles found along them (positions where exactly
    /// one turn connects, stops the opponent's connection, or wins the centre count) as
    /// the JSON of the web page's puzzle file.
    Puzzles(PuzzleArgs),
}

/// `punct rules puzzles`: how many puzzles of each goal, from which games.
#[derive(Args, Debug)]
struct PuzzleArgs {
    /// Puzzles that ask to connect at once.
    #[arg(long, default_value_t = 8)]
    connect: usize,
    /// Puzzles that ask to stop the opponent's connection.
    #[arg(long, default_value_t = 8)]
    stop: usize,
    /// Puzzles that ask to win the count of the centre.
    #[arg(long, default_value_t = 8)]
    centre: usize,
    /// The engine that plays the games: random, greedy, or a level 1 to 5.
    #[arg(long, default_value_t = Level::new(3).expect("a level number"))]
    level: Level,
    /// Thinking time per turn, in milliseconds.
    #[arg(long, default_value_t = 50)]
    ms_per_turn: u64,
    /// Games to play at most.
    #[arg(long, default_value_t = 200)]
    games: u32,
    /// Seeds the games' openings and the engine.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// `punct rules match`: who plays, how many games, how fast.
#[derive(Args, Debug)]
struct MatchArgs {
    /// The first player: random, greedy, or a level 1 to 5 (5 is the strongest).
    #[arg(long, required_unless_present = "a_command")]
    a: Option<Level>,
    /// The second player, as for --a.
    #[arg(long, required_unless_present = "b_command")]
    b: Option<Level>,
    /// The first player is another program instead (another build, say): run for each
    /// turn by `sh -c` with the game's record on standard input, `{ms}` replaced by its
    /// time for the turn; the first word it prints is its turn, as `punct rules think
    /// --variant V --record - --level L --ms {ms}` prints it.
    #[arg(long, value_name = "COMMAND", conflicts_with = "a")]
    a_command: Option<String>,
    /// The second player is another program, as for --a-command.
    #[arg(long, value_name = "COMMAND", conflicts_with = "b")]
    b_command: Option<String>,
    /// Number of games; A has White in the odd-numbered ones.
    #[arg(long, default_value_t = 10)]
    games: u32,
    /// The game played.
    #[arg(long, ignore_case = true, value_parser = variant_parser())]
    variant: Variant,
    /// Thinking time per turn, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    ms_per_turn: u64,
    /// A's thinking time per turn, when it differs from --ms-per-turn (to measure what
    /// time buys).
    #[arg(long, value_name = "MS")]
    a_ms_per_turn: Option<u64>,
    /// Seeds the openings and the engines' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random drops played before the engines take over.
    #[arg(long, default_value_t = 4)]
    opening: u32,
    /// Stop a game after this many turns and count it as a draw.
    #[arg(long, default_value_t = 400)]
    max_turns: usize,
    /// Write each game's record to DIR/game-N.txt (the directory must exist).
    #[arg(long, value_name = "DIR")]
    records: Option<PathBuf>,
    /// Play this many games at once, one thread each (the games and their results are
    /// the same; only the order they are printed in changes). Each engine thinks on one
    /// thread, so more jobs than cores takes time from every engine.
    #[arg(long, default_value_t = NonZeroUsize::MIN)]
    jobs: NonZeroUsize,
    /// Stop early by a sequential probability ratio test of A's Elo over B's: ELO0 (the
    /// null hypothesis) against this, the alternative; --games is then the most played.
    #[arg(long, value_name = "ELO")]
    elo1: Option<f64>,
    /// The SPRT's null hypothesis, in Elo (with --elo1).
    #[arg(long, value_name = "ELO", default_value_t = 0.0, requires = "elo1")]
    elo0: f64,
    /// The SPRT's chance of accepting --elo1 when --elo0 holds.
    #[arg(long, default_value_t = 0.05, requires = "elo1")]
    alpha: f64,
    /// The SPRT's chance of accepting --elo0 when --elo1 holds.
    #[arg(long, default_value_t = 0.05, requires = "elo1")]
    beta: f64,
}

/// Which position a `rules` subcommand looks at.
#[derive(Args, Debug)]
struct PositionArgs {
    /// The game played.
    #[arg(long, ignore_case = true, value_parser = variant_parser())]
    variant: Variant,
    /// A game record, one turn per line; `-` reads standard input. Without it, the start.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

/// Accepts the variants' names, listing them in `--help` and in clap's error message.
fn format_parser() -> impl TypedValueParser<Value = TournamentFormat> {
    let formats = ["swiss", "arena", "round-robin", "double-round-robin"];
    PossibleValuesParser::new(formats)
        .try_map(|name| TournamentFormat::parse(&name).ok_or_else(|| format!("no format {name}")))
}

fn variant_parser() -> impl TypedValueParser<Value = Variant> {
    PossibleValuesParser::new([Variant::Standard.name(), Variant::Basic.name()])
        .try_map(|name| name.parse::<Variant>())
}

/// Why a command failed, with the exit status it gives.
enum Failure {
    /// Talking to the server failed: exit status 1.
    Online(anyhow::Error),
    /// The record could not be read or replayed: exit status 2, as for a usage error.
    Record(String),
    /// Writing the output failed, usually a closed pipe: exit status 1.
    Output(io::Error),
    /// A program playing a side of `punct rules match` failed: exit status 1.
    Match(arena::MatchError),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Output(e)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Rules(command) => rules(command),
        Command::Play(args) => online(play(args)),
        Command::Watch(args) => online(watch(args)),
        Command::Bot(args) => online(bot(args)),
        Command::Login(args) => online(login(args)),
        Command::Logout(args) => online(logout(args)),
        Command::Whoami(args) => online(whoami(args)),
        Command::Games(args) => online(games(args)),
        Command::Tournaments(args) => online(tournaments(args)),
        Command::Tournament(command) => online(tournament(command)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Record(message)) => {
            eprintln!("punct: {message}");
            ExitCode::from(2)
        }
        // A reader that went away (`punct rules moves | head`) is not an error worth a word.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Online(e)) => {
            eprintln!("punct: {e:#}");
            ExitCode::FAILURE
        }
        Err(Failure::Output(e)) => {
            eprintln!("punct: cannot write output: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Match(e)) => {
            eprintln!("punct: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one `punct rules` subcommand.
fn rules(command: RulesCommand) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match command {
        RulesCommand::Moves(args) => {
            let game = args.game()?;
            for turn in game.legal_turns() {
                writeln!(out, "{turn}")?;
            }
        }
        RulesCommand::Perft {
            position,
            depth,
            divide,
            threads,
        } => {
            let game = position.game()?;
            let counts = perft_on_threads(&game, depth, threads);
            if divide {
                for (turn, count) in &counts {
                    writeln!(out, "{turn} {count}")?;
                }
            }
            // With no first turn (depth 0, or the game over) the sum says nothing: perft
            // itself knows that the empty sequence counts at depth 0.
            let total = if counts.is_empty() {
                perft(&game, depth)
            } else {
                counts.iter().map(|(_, n)| n).sum()
            };
            writeln!(out, "{total}")?;
        }
        RulesCommand::Status(args) => {
            let game = args.game()?;
            match game.outcome() {
                Some(outcome) => writeln!(out, "{outcome}")?,
                None => writeln!(out, "to-move {}", game.to_move())?,
            }
        }
        RulesCommand::Show(args) => {
            let game = args.game()?;
            let style = if io::stdout().is_terminal() {
                DiagramStyle::Ansi
            } else {
                DiagramStyle::Plain
            };
            write!(out, "{}", Diagram::of_game(&game, style))?;
        }
        RulesCommand::Match(args) => play_match(&args, &mut out)?,
        RulesCommand::Puzzles(args) => {
            let found = puzzle::generate(
                Variant::Standard,
                args.level,
                Duration::from_millis(args.ms_per_turn),
                args.seed,
                args.games,
                [args.connect, args.stop, args.centre],
            );
            writeln!(out, "{}", puzzle_file(&found))?;
        }
        RulesCommand::Think {
            position,
            level,
            ms,
            depth,
        } => {
            let game = position.game()?;
            let limits = match depth {
                Some(depth) => Limits::depth(depth),
                None => Limits::within(Duration::from_millis(ms)),
            };
            let start = Instant::now();
            let choice = Engine::new(level).think(&game, &limits);
            let took = start.elapsed().as_secs_f64();
            match choice {
                Some(c) => writeln!(
                    out,
                    "{} score {} depth {} nodes {} in {:.3} s ({:.0} nodes/s)",
                    c.turn,
                    c.score,
                    c.depth,
                    c.nodes,
                    took,
                    c.nodes as f64 / took
                )?,
                None => writeln!(out, "the game is over")?,
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The puzzles as the web page's puzzle file (`server/web/puzzles.json`): each with an
/// id made of its goal and its number among that goal's puzzles.
fn puzzle_file(found: &[puzzle::Puzzle]) -> String {
    let puzzles: Vec<_> = puzzle::Goal::ALL
        .into_iter()
        .flat_map(|goal| {
            found
                .iter()
                .filter(move |p| p.goal == goal)
                .enumerate()
                .map(|(n, p)| {
                    serde_json::json!({
                        "id": format!("{}-{}", p.goal, n + 1),
                        "goal": p.goal.name(),
                        "variant": p.variant.name(),
                        "turns": p.turns.iter().map(Turn::to_string).collect::<Vec<_>>(),
                        "answer": p.answer.to_string(),
                    })
                })
        })
        .collect();
    let file = serde_json::json!({
        "about": "Puzzles found along engine games by `punct rules puzzles`: in each position exactly one turn of the player to move does what the goal asks (server/tests/it/puzzles.rs checks every one with the engine's puzzle module). `turns`: the game up to the puzzle; `answer`: its one solution.",
        "puzzles": puzzles,
    });
    serde_json::to_string_pretty(&file).expect("JSON values serialise")
}

/// [`perft_divide`](punct_rules::perft_divide) on `threads` threads: each plays the next
/// first turn not yet taken and counts the sequences after it, so that a first turn
/// with many moves after it does not leave the other threads idle.
fn perft_on_threads(game: &Game, depth: u32, threads: NonZeroUsize) -> Vec<(Turn, u64)> {
    if depth == 0 || game.is_over() {
        return Vec::new();
    }
    let turns = game.legal_turns();
    let next = AtomicUsize::new(0);
    let mut counts = vec![0; turns.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.get())
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&turn) = turns.get(index) else {
                            return done;
                        };
                        let mut after = game.clone();
                        after.play(turn).expect("generated turns are legal");
                        done.push((index, perft(&after, depth - 1)));
                    }
                })
            })
            .collect();
        for worker in workers {
            for (index, count) in worker.join().expect("a perft thread panicked") {
                counts[index] = count;
            }
        }
    });
    turns.into_iter().zip(counts).collect()
}

/// Plays a match, printing a line per game as it ends, then the totals.
fn play_match(args: &MatchArgs, out: &mut impl Write) -> Result<(), Failure> {
    let player = |level: Option<Level>, command: &Option<String>| match (level, command) {
        (_, Some(command)) => Player::Command(command.clone()),
        (Some(level), None) => Player::Engine(level),
        (None, None) => unreachable!("clap requires a level or a command"),
    };
    let config = MatchConfig {
        a: player(args.a, &args.a_command),
        b: player(args.b, &args.b_command),
        games: args.games,
        variant: args.variant,
        per_turn: [
            args.a_ms_per_turn.unwrap_or(args.ms_per_turn),
            args.ms_per_turn,
        ]
        .map(Duration::from_millis),
        seed: args.seed,
        opening: args.opening,
        max_turns: args.max_turns,
        sprt: args.elo1.map(|elo1| Sprt {
            elo0: args.elo0,
            elo1,
            alpha: args.alpha,
            beta: args.beta,
        }),
    };
    let mut written = Ok(());
    let report = arena::play_match(&config, args.jobs, |number, game| {
        let result = match game.outcome {
            Some(outcome) => outcome.to_string(),
            None => format!("stopped after {} turns", game.game.turns().len()),
        };
        let winner = match game.a_won() {
            Some(true) => "A wins",
            Some(false) => "B wins",
            None => "no winner",
        };
        if let (Ok(()), Some(dir)) = (&written, &args.records) {
            let text = format!("# game {number}: {result}\n{}", game.game.record());
            written = std::fs::write(dir.join(format!("game-{number}.txt")), text);
        }
        if written.is_ok() {
            written = writeln!(
                out,
                "game {number}: A {} plays {}: {result} after {} turns: {winner}",
                config.a,
                game.a_color,
                game.game.turns().len()
            )
            .and_then(|()| out.flush());
        }
    });
    let report = report.map_err(Failure::Match)?;
    written?;
    let line = |name: &str, player: &Player, t: &Tally| {
        format!(
            "{name} {player}: {} wins ({} as white), {} losses, {} draws, {:.1} ms per turn, \
             depth {:.2}, {:.0} positions/s",
            t.wins,
            t.wins_as_white,
            t.losses,
            t.draws,
            t.average().as_secs_f64() * 1000.0,
            t.average_depth(),
            t.nodes_per_second()
        )
    };
    writeln!(out, "{}", line("A", &config.a, &report.a))?;
    writeln!(out, "{}", line("B", &config.b, &report.b))?;
    if report.stopped > 0 {
        writeln!(
            out,
            "{} games stopped at {} turns, counted as draws",
            report.stopped, args.max_turns
        )?;
    }
    let results = report.results();
    if let Some((score, low, high)) = results.score() {
        writeln!(
            out,
            "A's score {score:.3} (95%: {low:.3} to {high:.3}) over {} games: Elo {:+.0} ({:+.0} to {:+.0})",
            results.games(),
            sprt::elo(score),
            sprt::elo(low),
            sprt::elo(high)
        )?;
    }
    if let (Some(test), Some(verdict)) = (config.sprt, report.verdict) {
        let (lower, upper) = test.bounds();
        let said = match verdict {
            Verdict::AcceptElo0 => format!("elo0 ({}) accepted", test.elo0),
            Verdict::AcceptElo1 => format!("elo1 ({}) accepted", test.elo1),
            Verdict::Continue => "undecided".to_owned(),
        };
        writeln!(
            out,
            "SPRT elo0 {} elo1 {} alpha {} beta {}: LLR {:.2} (bounds {lower:.2}, {upper:.2}): {said}",
            test.elo0,
            test.elo1,
            test.alpha,
            test.beta,
            results.llr(test.elo0, test.elo1)
        )?;
    }
    Ok(())
}

impl PositionArgs {
    /// Replays the record, or starts a new game without one.
    fn game(&self) -> Result<Game, Failure> {
        let Some(path) = &self.record else {
            return Ok(Game::new(self.variant));
        };
        let text = if path.as_os_str() == "-" {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::Record(format!("cannot read the record from stdin: {e}")))?;
            text
        } else {
            std::fs::read_to_string(path).map_err(|e| {
                Failure::Record(format!("cannot read the record {}: {e}", path.display()))
            })?
        };
        Game::from_record(self.variant, &text).map_err(|e| {
            let source = if path.as_os_str() == "-" {
                "stdin".to_owned()
            } else {
                path.display().to_string()
            };
            Failure::Record(format!("{source}: {e}"))
        })
    }
}

/// Runs an online command on a runtime of its own.
fn online(work: impl Future<Output = anyhow::Result<()>>) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Failure::Output)?;
    runtime.block_on(work).map_err(Failure::Online)
}

impl SeatArgs {
    /// The seat file to use, if there is a place for one.
    fn book(&self) -> Option<SeatBook> {
        self.seats
            .clone()
            .or_else(SeatBook::default_path)
            .map(SeatBook::at)
    }

    /// What to ask the server for, as `account` if signed in.
    fn request(&self, account: Option<String>) -> anyhow::Result<SeatRequest> {
        if self.rated && account.is_none() {
            anyhow::bail!("a rated game is for signed-in players: punct login first");
        }
        Ok(SeatRequest {
            room: self.room.clone(),
            token: self.token.clone(),
            create: self.create.map(|variant| CreateRoom {
                variant,
                color: match self.color {
                    ColorChoice::White => SeatChoice::White,
                    ColorChoice::Black => SeatChoice::Black,
                    ColorChoice::Random => SeatChoice::Random,
                },
                visibility: if self.private {
                    Visibility::Private
                } else {
                    Visibility::Public
                },
                clock: self.clock,
                computer: self.computer,
                rated: self.rated,
                ..CreateRoom::default()
            }),
            name: self.name.clone(),
            account,
        })
    }

    /// Gets the seat, as `account` if signed in, printing it as the first JSON line for
    /// scripts.
    async fn obtain(&self, server: &Client, account: Option<String>) -> anyhow::Result<SavedSeat> {
        let request = self.request(account)?;
        let seat = punct_cli::seats::obtain(server, &request, self.book().as_ref()).await?;
        script::print_line(&mut io::stdout().lock(), &script::seat_line(&seat))?;
        Ok(seat)
    }
}

/// `punct play`.
async fn play(args: PlayArgs) -> anyhow::Result<()> {
    let (server, account) = args.server.client()?;
    if let Some(clock) = args.seek {
        let game = SeekGame {
            variant: args.variant,
            clock,
            rated: args.seek_rated,
        };
        let seat = seek(&server, game, &args, account.is_some()).await?;
        let Some(path) = &args.script else {
            return tui::room(server, seat.entry(), args.seat.book()).await;
        };
        let steps = script::parse_script(&read_script(path)?)?;
        let book = args.seat.book();
        let out = &mut io::stdout().lock();
        script::print_line(out, &script::seat_line(&seat))?;
        return script::play(&server, seat, book.as_ref(), &steps, out).await;
    }
    let Some(path) = &args.script else {
        let request = args.seat.request(account)?;
        if args.seat.room.is_none() && args.seat.create.is_none() {
            return tui::lobby(server, args.seat.book(), request).await;
        }
        let seat = punct_cli::seats::obtain(&server, &request, args.seat.book().as_ref()).await?;
        return tui::room(server, seat.entry(), args.seat.book()).await;
    };
    let steps = script::parse_script(&read_script(path)?)?;
    if args.seat.room.is_none() && args.seat.create.is_none() {
        anyhow::bail!("--script needs --room or --create");
    }
    let seat = args.seat.obtain(&server, account).await?;
    script::play(
        &server,
        seat,
        args.seat.book().as_ref(),
        &steps,
        &mut io::stdout().lock(),
    )
    .await
}

/// `punct play --seek`: waits for someone to meet the seek of `game`, saying so, and
/// keeps the seat it was given in the seat file.
async fn seek(
    server: &Client,
    game: SeekGame,
    args: &PlayArgs,
    signed_in: bool,
) -> anyhow::Result<SavedSeat> {
    let options = SeekOptions {
        name: args.seat.name.clone().filter(|_| !signed_in),
        // One terminal's seeks are one person's.
        guest: (!signed_in).then(|| format!("punct-{}", std::process::id())),
        range: args.range,
    };
    // Said on standard error: with --script, standard output is JSON lines.
    eprintln!(
        "looking for an opponent ({}, {})…",
        clock_words(game.clock),
        game.variant
    );
    let Some(paired) = punct_client::seek(server, game, &options).await? else {
        anyhow::bail!("nobody came in time: seek again");
    };
    let opponent = paired.opponent.name.as_deref().unwrap_or("anonymous");
    eprintln!("paired with {opponent}: you play {}", paired.color);
    let seat = SavedSeat {
        server: server.server().to_string(),
        room: paired.room,
        color: paired.color,
        token: Some(paired.token),
    };
    if let Some(book) = args.seat.book() {
        book.save(seat.clone())?;
    }
    Ok(seat)
}

/// A time control as players say it: `5 min + 3 s`, `3 days a move`.
fn clock_words(clock: TimeControl) -> String {
    match clock.days {
        Some(days) => format!("{days} days a move"),
        None if clock.base.is_multiple_of(60) => {
            format!("{} min + {} s", clock.base / 60, clock.increment)
        }
        None => format!("{} s + {} s", clock.base, clock.increment),
    }
}

/// `punct watch`.
async fn watch(args: WatchArgs) -> anyhow::Result<()> {
    let entry = Entry::Watch { room: args.room };
    let (server, _) = args.server.client()?;
    if args.json {
        let link = punct_client::connect(server, entry);
        script::watch(link, &mut io::stdout().lock()).await
    } else {
        tui::room(server, entry, None).await
    }
}

/// `punct bot`.
async fn bot(args: BotArgs) -> anyhow::Result<()> {
    if let Some(id) = &args.tournament {
        let (server, me) = args.server.player()?;
        return tournament_bot(&server, id, &me, &args).await;
    }
    let (server, account) = args.server.client()?;
    let seat = args.seat.obtain(&server, account).await?;
    let link = punct_client::connect(server, seat.entry());
    let per_turn = Duration::from_millis(args.ms_per_turn);
    online_bot::run(
        link,
        Engine::new(args.level),
        per_turn,
        &mut io::stdout().lock(),
    )
    .await
}

/// `punct bot --tournament`: enters the tournament (unless entered already), then plays
/// each game it is paired in as it comes, printing each game's seat line and events,
/// until the tournament is over or the account is no longer in it.
async fn tournament_bot(server: &Client, id: &str, me: &str, args: &BotArgs) -> anyhow::Result<()> {
    match server.join_tournament(id).await {
        Ok(_) => {}
        // Entered before (a bot started again), or playing already: carry on.
        Err(punct_client::Error::Refused {
            code: Some(ErrorCode::AlreadyEntered | ErrorCode::TournamentStarted),
            ..
        }) => {}
        Err(e) => return Err(e.into()),
    }
    let mut played = HashSet::new();
    let per_turn = Duration::from_millis(args.ms_per_turn);
    while let Some(seat) = tournament::wait_for_game(server, id, me, &played).await? {
        script::print_line(&mut io::stdout().lock(), &script::seat_line(&seat))?;
        played.insert(seat.room.clone());
        let link = punct_client::connect(server.clone(), seat.entry());
        online_bot::run(
            link,
            Engine::new(args.level),
            per_turn,
            &mut io::stdout().lock(),
        )
        .await?;
    }
    let view = server.tournament(id).await?;
    script::print_line(
        &mut io::stdout().lock(),
        &serde_json::json!({"type": "tournament_over", "tournament": id, "state": view.summary.state}),
    )?;
    Ok(())
}

/// `punct tournaments`.
async fn tournaments(args: ServerArgs) -> anyhow::Result<()> {
    let (server, _) = args.client()?;
    for line in tournament::list_lines(&server.tournaments().await?) {
        println!("{line}");
    }
    Ok(())
}

/// `punct tournament …`.
async fn tournament(command: TournamentCommand) -> anyhow::Result<()> {
    match command {
        TournamentCommand::Create(args) => {
            let (server, _) = args.server.player()?;
            let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis();
            let request = args.request(i64::try_from(now)?);
            let view = server.create_tournament(&request).await?;
            println!("{}", view.summary.id);
            for line in tournament::show_lines(&view) {
                println!("{line}");
            }
        }
        TournamentCommand::Show(args) => {
            let (server, _) = args.server.client()?;
            for line in tournament::show_lines(&server.tournament(&args.id).await?) {
                println!("{line}");
            }
        }
        TournamentCommand::Join(args) => {
            let (server, me) = args.server.player()?;
            let view = server.join_tournament(&args.id).await?;
            println!(
                "{me} joined {} ({} players)",
                punct_cli::ui::plain(&view.summary.name),
                view.summary.players
            );
        }
        TournamentCommand::Withdraw(args) => {
            let (server, me) = args.server.player()?;
            let view = server.withdraw_from_tournament(&args.id).await?;
            println!(
                "{me} withdrew from {}",
                punct_cli::ui::plain(&view.summary.name)
            );
        }
        TournamentCommand::Play(args) => {
            let TournamentArgs { server, id } = &args.tournament;
            let (server, me) = server.player()?;
            if args.script.is_none() {
                eprintln!("waiting for your next game in tournament {id}…");
            }
            let Some(seat) = tournament::wait_for_game(&server, id, &me, &HashSet::new()).await?
            else {
                anyhow::bail!("no game to play: the tournament is over, or you are not in it");
            };
            let Some(path) = &args.script else {
                return tui::room(server, seat.entry(), None).await;
            };
            let steps = script::parse_script(&read_script(path)?)?;
            script::print_line(&mut io::stdout().lock(), &script::seat_line(&seat))?;
            script::play(&server, seat, None, &steps, &mut io::stdout().lock()).await?;
        }
    }
    Ok(())
}

/// The text of a script of turns, from FILE or, for `-`, standard input.
fn read_script(path: &std::path::Path) -> anyhow::Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| anyhow::anyhow!("cannot read the script from stdin: {e}"))?;
        Ok(text)
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read the script {}: {e}", path.display()))
    }
}

/// `punct login`: asks for what is missing, signs in (or registers), and saves the
/// session, never the password.
async fn login(args: LoginArgs) -> anyhow::Result<()> {
    let server = args.server.anonymous()?;
    let book = args
        .server
        .sessions()
        .ok_or_else(|| anyhow::anyhow!("no place for the session: give --config-dir"))?;
    let username = match args.username {
        Some(username) => username,
        None => account::prompt("username: ")?.trim().to_owned(),
    };
    let password = account::prompt_password("password: ")?;
    let session = if args.register {
        server.register(&username, &password).await?
    } else {
        server.sign_in(&username, &password).await?
    };
    let name = session.username.clone();
    book.save(&server.server().to_string(), session)?;
    println!("signed in as {name}");
    Ok(())
}

/// `punct logout`: signs the saved session out on the server, then forgets it.
async fn logout(args: ServerArgs) -> anyhow::Result<()> {
    let server = args.anonymous()?;
    let key = server.server().to_string();
    let Some(book) = args.sessions() else {
        println!("not signed in");
        return Ok(());
    };
    let Some(session) = book.find(&key)? else {
        println!("not signed in");
        return Ok(());
    };
    match server.with_session(&session.token).sign_out().await {
        // Ended already: there is nothing left to sign out.
        Ok(()) | Err(punct_client::Error::Refused { status: 401, .. }) => {}
        // Kept, so that signing out can be tried again.
        Err(e) => return Err(e.into()),
    }
    book.forget(&key)?;
    println!("signed out of {key}");
    Ok(())
}

/// `punct whoami`: the username the saved session is signed in to, as the server says.
async fn whoami(args: ServerArgs) -> anyhow::Result<()> {
    let (server, account) = args.client()?;
    if account.is_none() {
        println!("not signed in");
        return Ok(());
    }
    match server.signed_in().await {
        Ok(me) => println!("{}", me.username),
        Err(punct_client::Error::Refused { status: 401, .. }) => {
            eprintln!("punct: the saved session has ended; punct login signs in again");
            println!("not signed in");
        }
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// `punct games`.
async fn games(args: ServerArgs) -> anyhow::Result<()> {
    let (server, account) = args.client()?;
    if account.is_none() {
        anyhow::bail!("not signed in: punct login signs in");
    }
    let games = match server.my_games().await {
        Err(punct_client::Error::Refused { status: 401, .. }) => {
            anyhow::bail!("the saved session has ended; punct login signs in again")
        }
        answer => answer?,
    };
    for line in punct_cli::games::lines(&games) {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_is_given_as_several_servers() {
        let cli = Cli::try_parse_from([
            "punct",
            "watch",
            "--server",
            "http://a:8080,http://b:8080",
            "--room",
            "r",
        ])
        .unwrap();
        let Command::Watch(args) = cli.command else {
            panic!("watch");
        };
        assert_eq!(args.server.server.len(), 2);
        assert_eq!(
            args.server.anonymous().unwrap().server().to_string(),
            "http://a:8080"
        );
        assert!(Cli::try_parse_from(["punct", "watch", "--room", "r"]).is_err());
    }

    #[test]
    fn a_tournament_bot_takes_no_seat_of_its_own() {
        let bot = |extra: &[&str]| {
            let args = [
                "punct",
                "bot",
                "--server",
                "http://a:8080",
                "--tournament",
                "t",
            ];
            Cli::try_parse_from(args.iter().chain(extra))
        };
        let Command::Bot(args) = bot(&["--level", "2"]).unwrap().command else {
            panic!("bot");
        };
        assert_eq!(args.tournament.as_deref(), Some("t"));
        assert!(bot(&["--room", "r"]).is_err());
        assert!(bot(&["--create", "standard"]).is_err());
    }
}
