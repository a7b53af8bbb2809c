//! The puzzle page: every shipped puzzle (`server/web/puzzles.json`, as the server sends
//! it) has exactly one answer, checked again with the engine's puzzle module over the
//! rules; and a signed-in player's solved puzzles are kept (`/api/me/puzzles`).

use std::collections::BTreeSet;

use punct_engine::puzzle::{self, Goal};
use punct_protocol::ErrorCode;
use punct_rules::{Game, Turn, Variant};
use punct_server::Config;
use punct_testing::{Database, Endpoint, TestServer, api_error};
use serde::Deserialize;

/// The file of puzzles.
#[derive(Deserialize)]
struct Puzzles {
    puzzles: Vec<Puzzle>,
}

/// One puzzle, as `punct rules puzzles` writes it.
#[derive(Deserialize)]
struct Puzzle {
    id: String,
    goal: String,
    variant: String,
    turns: Vec<String>,
    answer: String,
}

#[tokio::test]
async fn every_shipped_puzzle_has_exactly_one_answer() {
    let server = TestServer::start().await;
    let (status, json) = server.http("GET", "/assets/puzzles.json", "").await;
    assert_eq!(status, 200);
    let file: Puzzles = serde_json::from_str(&json).expect("puzzles.json reads");
    let (status, page) = server.http("GET", "/puzzles", "").await;
    assert_eq!(status, 200);
    assert!(page.contains("puzzles.js"));

    assert!((20..=30).contains(&file.puzzles.len()), "a set of 20 to 30");
    let ids: BTreeSet<&str> = file.puzzles.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids.len(), file.puzzles.len(), "ids are unique");
    for goal in Goal::ALL {
        assert!(
            file.puzzles
                .iter()
                .filter(|p| p.goal == goal.name())
                .count()
                >= 5,
            "enough puzzles of {goal}"
        );
    }
    for p in &file.puzzles {
        let variant: Variant = p.variant.parse().unwrap();
        let turns: Vec<Turn> = p.turns.iter().map(|t| t.parse().unwrap()).collect();
        let game = Game::replay(variant, &turns).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        let goal: Goal = p.goal.parse().unwrap();
        let answer: Turn = p.answer.parse().unwrap();
        assert_eq!(
            puzzle::solutions(&game, goal),
            [answer],
            "{}: exactly one turn solves it",
            p.id
        );
        assert_eq!(
            puzzle::solution(&game, goal),
            Some(answer),
            "{}: and nothing else wins at once",
            p.id
        );
    }
}

/// The ids of the puzzles `who` has solved.
async fn solved(who: &Endpoint) -> Vec<String> {
    let list: serde_json::Value = who.get("/api/me/puzzles").await;
    serde_json::from_value(list["solved"].clone()).unwrap()
}

/// `POST /api/me/puzzles` as `who` for puzzle `id`: the status and body.
async fn solve(who: &Endpoint, id: &str) -> (u16, String) {
    who.http(
        "POST",
        "/api/me/puzzles",
        &format!(r#"{{"puzzle":"{id}"}}"#),
    )
    .await
}

/// A server on a database it can be started again on, and two players signed up.
struct Players {
    /// The database, kept for the server's restart.
    database: Database,
    /// The server.
    server: TestServer,
    /// Anna's session, to sign in again after the restart.
    anna_token: String,
    /// Anna, signed in.
    anna: Endpoint,
    /// Bert, signed in.
    bert: Endpoint,
}

/// The settings of a server on `database`.
fn config(database: &Database) -> Config {
    Config {
        database: Some(database.url()),
        ..Config::default()
    }
}

/// Anna and Bert on a new server and database.
async fn anna_and_bert() -> Players {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let anna_token = server.register("anna", "a fine password").await;
    let anna = server.signed_in(&anna_token);
    let bert = server.signed_in(&server.register("bert", "a fine password").await);
    Players {
        database,
        server,
        anna_token,
        anna,
        bert,
    }
}

#[tokio::test]
async fn a_players_solved_puzzles_are_kept_with_the_account() {
    let Players {
        database,
        server,
        anna_token,
        anna,
        bert,
    } = anna_and_bert().await;

    assert!(solved(&anna).await.is_empty());
    // The body of a page before puzzle ratings: the puzzle alone, meaning solved, and
    // answered as it was then.
    assert_eq!(solve(&anna, "stop-2").await, (204, String::new()));
    assert_eq!(solve(&anna, "connect-1").await.0, 204);
    assert_eq!(
        solve(&anna, "stop-2").await.0,
        204,
        "again: nothing changes"
    );
    let (status, body) = solve(&anna, "no-such-puzzle").await;
    assert_eq!((status, api_error(&body)), (400, ErrorCode::BadRequest));
    assert_eq!(solve(&server, "stop-1").await.0, 401, "signed in only");
    assert_eq!(solved(&anna).await, ["connect-1", "stop-2"], "by id");
    assert!(solved(&bert).await.is_empty(), "each player's own");
    let export: serde_json::Value = anna.get("/api/me/export").await;
    assert_eq!(
        export["puzzles"]["solved"],
        serde_json::json!(["connect-1", "stop-2"])
    );

    // Stored: they outlast the server.
    server.shutdown().await.unwrap();
    let server = TestServer::with(config(&database)).await;
    let anna = server.signed_in(&anna_token);
    assert_eq!(solved(&anna).await, ["connect-1", "stop-2"]);
}

/// `POST /api/me/puzzles` as `who`: puzzle `id` finished, `solved` or not; the answer.
async fn finish(who: &Endpoint, id: &str, solved: bool) -> serde_json::Value {
    let body = serde_json::json!({ "puzzle": id, "solved": solved }).to_string();
    let (status, answer) = who.http("POST", "/api/me/puzzles", &body).await;
    assert_eq!(status, 200, "{answer}");
    serde_json::from_str(&answer).unwrap()
}

/// Puzzle `id`'s rating, as `GET /api/puzzles` shows it to anyone.
async fn puzzle_rating(server: &TestServer, id: &str) -> serde_json::Value {
    let list: serde_json::Value = server.get("/api/puzzles").await;
    let puzzles = list["puzzles"].as_array().unwrap();
    puzzles.iter().find(|p| p["id"] == id).unwrap()["rating"].clone()
}

#[tokio::test]
async fn a_players_first_result_of_a_puzzle_rates_player_and_puzzle() {
    let Players {
        database,
        server,
        anna_token,
        anna,
        bert,
    } = anna_and_bert().await;

    // Every puzzle of the file is listed, a newcomer until played.
    let list: serde_json::Value = server.get("/api/puzzles").await;
    let file: Puzzles = server.get("/assets/puzzles.json").await;
    let ids: Vec<&str> = list["puzzles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        file.puzzles
            .iter()
            .map(|p| p.id.as_str())
            .collect::<Vec<_>>()
    );
    assert_eq!(puzzle_rating(&server, "stop-2").await["rating"], 1500.0);
    let me: serde_json::Value = anna.get("/api/me/puzzles").await;
    assert_eq!(me["rating"]["rating"], 1500.0);
    assert_eq!(me["rating"]["provisional"], true);
    assert_eq!(me["best_streak"], 0);

    // Anna fails it: she loses points, the puzzle gains them.
    let failed = finish(&anna, "stop-2", false).await;
    assert_eq!(failed["rated"], true);
    let rating = failed["rating"]["rating"].as_f64().unwrap();
    assert!(rating < 1500.0, "{failed}");
    assert_eq!(
        failed["change"].as_i64().unwrap(),
        rating.round() as i64 - 1500
    );
    assert!(failed["change"].as_i64().unwrap() < 0);
    assert!(failed["puzzle"]["rating"].as_f64().unwrap() > 1500.0);
    assert_eq!(puzzle_rating(&server, "stop-2").await, failed["puzzle"]);
    assert!(solved(&anna).await.is_empty(), "failed is not solved");

    // Solving it after: kept as solved, rated no more.
    let later = finish(&anna, "stop-2", true).await;
    assert_eq!(later["rated"], false);
    assert_eq!(later["change"], 0);
    assert_eq!(later["rating"], failed["rating"]);
    assert_eq!(later["puzzle"], failed["puzzle"]);
    assert_eq!(solved(&anna).await, ["stop-2"]);

    // Bert solves it: he gains, and the puzzle loses from where Anna left it.
    let won = finish(&bert, "stop-2", true).await;
    assert_eq!(won["rated"], true);
    assert!(won["change"].as_i64().unwrap() > 0);
    assert!(
        won["puzzle"]["rating"].as_f64().unwrap() < failed["puzzle"]["rating"].as_f64().unwrap()
    );

    for refused in [
        r#"{"puzzle":"stop-9","solved":true}"#,
        r#"{"puzzle":"stop-1","solved":"yes"}"#,
    ] {
        let (status, body) = anna.http("POST", "/api/me/puzzles", refused).await;
        assert_eq!((status, api_error(&body)), (400, ErrorCode::BadRequest));
    }

    // A streak: the longest is kept, for signed-in players only.
    assert_eq!(
        streak(&anna, 4).await,
        (200, r#"{"best_streak":4}"#.to_owned())
    );
    assert_eq!(
        streak(&anna, 2).await,
        (200, r#"{"best_streak":4}"#.to_owned())
    );
    assert_eq!(streak(&server, 2).await.0, 401);
    let every = u32::try_from(ids.len()).unwrap();
    let (status, body) = streak(&anna, every + 1).await;
    assert_eq!((status, api_error(&body)), (400, ErrorCode::BadRequest));
    assert_eq!(streak(&anna, every).await.0, 200, "every puzzle");

    // Stored: the ratings and the streak outlast the server.
    server.shutdown().await.unwrap();
    let server = TestServer::with(config(&database)).await;
    let anna = server.signed_in(&anna_token);
    let me: serde_json::Value = anna.get("/api/me/puzzles").await;
    assert_eq!(me["rating"], failed["rating"]);
    assert_eq!(me["best_streak"], every);
    assert_eq!(me["solved"], serde_json::json!(["stop-2"]));
    assert_eq!(puzzle_rating(&server, "stop-2").await, won["puzzle"]);
    let export: serde_json::Value = anna.get("/api/me/export").await;
    assert_eq!(export["puzzles"], me);
}

/// `POST /api/me/puzzles/streak` as `who`: a streak of `n` ended.
async fn streak(who: &Endpoint, n: u32) -> (u16, String) {
    let body = format!(r#"{{"streak":{n}}}"#);
    who.http("POST", "/api/me/puzzles/streak", &body).await
}
