//! The `punct` command: `punct rules …` analyses positions with the rules engine.
//!
//! Every `rules` subcommand replays a game record (`--record FILE`, `--record -` for
//! standard input, none for the start) and looks at the position it leads to. A bad record
//! line is reported with its number on standard error, with exit status 2.
//!
//! `punct rules match` plays the computer against itself from the start instead.
//!
//! `punct play`, `punct watch`, `punct bot` and `punct tournament` talk to a server (see
//! README.md beside this crate), as the account `punct login` signed in to when there is
//! one; their work is in the `punct_cli` library. This file holds the arguments and the
//! commands that play; `commands/` the others: `rules`, `tournament` and `account`.

mod commands;

use std::io::{self, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use punct_cli::account::SessionBook;
use punct_cli::seats::{SavedSeat, SeatBook, SeatRequest};
use punct_cli::{bot as online_bot, language, lobby, script, tui};
use punct_client::{Client, Entry, SeekOptions, Server};
use punct_engine::Engine;
use punct_engine::Level;
use punct_engine::arena::{self};
use punct_protocol::{CreateRoom, SeatChoice, SeekGame, TimeControl, TournamentFormat, Visibility};
use punct_rules::Variant;

use commands::account::{LoginArgs, games, login, logout, whoami};
use commands::rules::{RulesCommand, rules};
use commands::tournament::{TournamentCommand, tournament, tournament_bot, tournaments};

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
        Engine::for_game(args.level, &seat.room),
        per_turn,
        &mut io::stdout().lock(),
    )
    .await
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
