-- Migration 0001: the initial schema.
--
-- cutune applies migrations in order, each inside its own BEGIN IMMEDIATE ... COMMIT, and
-- sets PRAGMA user_version to the number applied; so no transaction statements here.
-- Never edit a migration that has shipped: add a new file instead.
--
-- Times are UTC text 'YYYY-MM-DD HH:MM:SS'. 64-bit unsigned values (seeds) are stored as
-- their bit pattern in a signed INTEGER.

-- A GPU, keyed by its UUID; the other fields are refreshed each time it is seen.
CREATE TABLE devices (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    cc_major        INTEGER NOT NULL,
    cc_minor        INTEGER NOT NULL,
    sm_count        INTEGER NOT NULL,
    total_mem       INTEGER NOT NULL,           -- bytes
    driver_version  INTEGER NOT NULL,           -- e.g. 13000
    runtime_version INTEGER NOT NULL,
    first_seen      TEXT NOT NULL DEFAULT (datetime('now')),
    last_seen       TEXT NOT NULL DEFAULT (datetime('now'))
) STRICT;

-- A kernel implementation of an op; a new version or source is a new variant.
CREATE TABLE variants (
    id          INTEGER PRIMARY KEY,
    op          TEXT NOT NULL,
    name        TEXT NOT NULL,
    version     TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    UNIQUE (name, version, source_hash)
) STRICT;

-- One problem of an op, e.g. ('gemm', '4096x4096x4096').
CREATE TABLE problems (
    id   INTEGER PRIMARY KEY,
    op   TEXT NOT NULL,
    size TEXT NOT NULL,
    UNIQUE (op, size)
) STRICT;

-- One invocation of the tuner.
CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    started_at   TEXT NOT NULL DEFAULT (datetime('now')),
    finished_at  TEXT,
    argv         TEXT NOT NULL,
    op           TEXT,
    strategy     TEXT,
    budget       INTEGER NOT NULL DEFAULT 0,    -- evaluations; 0 = none
    time_limit_s REAL NOT NULL DEFAULT 0,       -- 0 = none
    seed         INTEGER,
    device_id    INTEGER REFERENCES devices (id),
    status       TEXT NOT NULL DEFAULT 'running'
                 CHECK (status IN ('running', 'done', 'interrupted', 'failed'))
) STRICT;

-- One config of one variant measured on one device for one problem. Timings are NULL
-- unless status is 'ok'; gflops/gbps are NULL when not applicable.
CREATE TABLE trials (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs (id),
    device_id   INTEGER NOT NULL REFERENCES devices (id),
    variant_id  INTEGER NOT NULL REFERENCES variants (id),
    problem_id  INTEGER NOT NULL REFERENCES problems (id),
    config      TEXT NOT NULL,                  -- canonical 'TILE=16,PAD=1'
    status      TEXT NOT NULL
                CHECK (status IN ('ok', 'wrong_result', 'compile_error', 'launch_error',
                                  'skipped_resources', 'timeout', 'crashed')),
    median_ms   REAL,
    min_ms      REAL,
    mean_ms     REAL,
    stddev_ms   REAL,
    samples     INTEGER,
    gflops      REAL,
    gbps        REAL,
    error       REAL,                           -- the check's error measure
    compile_ms  REAL,
    measure_ms  REAL,
    message     TEXT,                           -- why it failed
    seed        INTEGER,
    created_at  TEXT NOT NULL DEFAULT (datetime('now'))
) STRICT;

CREATE INDEX trials_by_config ON trials (device_id, variant_id, problem_id, config);
CREATE INDEX trials_by_run ON trials (run_id);

-- The fastest verified trial per (device, problem), across all variants of the op.
CREATE TABLE best (
    device_id  INTEGER NOT NULL REFERENCES devices (id),
    problem_id INTEGER NOT NULL REFERENCES problems (id),
    trial_id   INTEGER NOT NULL REFERENCES trials (id),
    updated_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (device_id, problem_id)
) STRICT;

CREATE INDEX best_by_trial ON best (trial_id);

-- For people with the sqlite3 shell: SELECT * FROM best_configs WHERE op = 'gemm';
CREATE VIEW best_configs AS
SELECT d.name       AS device,
       d.uuid       AS device_uuid,
       p.op         AS op,
       p.size       AS size,
       v.name       AS variant,
       v.version    AS variant_version,
       t.config     AS config,
       t.median_ms  AS median_ms,
       t.gflops     AS gflops,
       t.gbps       AS gbps,
       b.updated_at AS updated_at
FROM best b
JOIN devices d ON d.id = b.device_id
JOIN problems p ON p.id = b.problem_id
JOIN trials t ON t.id = b.trial_id
JOIN variants v ON v.id = t.variant_id;

-- Every trial with names instead of ids: SELECT * FROM trial_details WHERE run_id = 3;
CREATE VIEW trial_details AS
SELECT t.id         AS id,
       t.run_id     AS run_id,
       d.name       AS device,
       d.uuid       AS device_uuid,
       p.op         AS op,
       p.size       AS size,
       v.name       AS variant,
       v.version    AS variant_version,
       t.config     AS config,
       t.status     AS status,
       t.median_ms  AS median_ms,
       t.min_ms     AS min_ms,
       t.mean_ms    AS mean_ms,
       t.stddev_ms  AS stddev_ms,
       t.samples    AS samples,
       t.gflops     AS gflops,
       t.gbps       AS gbps,
       t.error      AS error,
       t.compile_ms AS compile_ms,
       t.measure_ms AS measure_ms,
       t.message    AS message,
       t.seed       AS seed,
       t.created_at AS created_at
FROM trials t
JOIN devices d ON d.id = t.device_id
JOIN problems p ON p.id = t.problem_id
JOIN variants v ON v.id = t.variant_id;
