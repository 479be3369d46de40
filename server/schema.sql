-- Zilch Tower state database: games, their journals, players, records and
-- every scored roll. Opened in WAL mode; every journal row is committed
-- before the state it leads to is shown to anyone.

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    preset      TEXT NOT NULL,
    rules       TEXT NOT NULL,              -- JSON object of house rules
    players     TEXT NOT NULL,              -- JSON list of the starting names
    bots        TEXT NOT NULL DEFAULT '{}', -- JSON object name -> bot
    status      TEXT NOT NULL DEFAULT 'playing'
                CHECK (status IN ('playing', 'finished', 'abandoned')),
    winners     TEXT NOT NULL DEFAULT '[]', -- JSON list of names
    summary     TEXT,                       -- JSON replay summary once finished
    started_at  TEXT NOT NULL,
    finished_at TEXT
);

-- One row per change of the table. seq is the state's sequence number (the
-- SSE id). action is a replay-format action applied to the game, or a host's
-- edit ({"undo": true} takes back the set-aside before it, {"rename": {"from",
-- "to"}} renames a player; the exported record folds them in); tower the
-- physical operations performed (for the simulated tower's replay); log the
-- log entries shown; snapshot the controller state after the change.
CREATE TABLE IF NOT EXISTS journal (
    seq      INTEGER PRIMARY KEY,
    game_id  INTEGER REFERENCES games (id),
    action   TEXT,
    tower    TEXT NOT NULL DEFAULT '[]',
    log      TEXT NOT NULL DEFAULT '[]',
    snapshot TEXT NOT NULL,
    at       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_game ON journal (game_id, seq);

CREATE TABLE IF NOT EXISTS players (
    name       TEXT PRIMARY KEY,
    bot        TEXT,
    first_seen TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS records (
    player    TEXT NOT NULL,
    preset    TEXT NOT NULL,
    best_turn INTEGER NOT NULL DEFAULT 0,
    best_game INTEGER NOT NULL DEFAULT 0,
    wins      INTEGER NOT NULL DEFAULT 0,
    losses    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player, preset)
);

-- Every roll that was read and scored: the values, for dice-fairness statistics.
CREATE TABLE IF NOT EXISTS rolls (
    seq     INTEGER PRIMARY KEY REFERENCES journal (seq),
    game_id INTEGER NOT NULL REFERENCES games (id),
    player  TEXT NOT NULL,
    dice    TEXT NOT NULL                   -- values joined by commas
);
