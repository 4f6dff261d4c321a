-- Migration 0003: what a run searched and how it ended, the vendor yardsticks measured beside
-- the tuned kernels, trials whose timing was cut short, and what identifies a run across
-- databases and processes.

-- A trial whose first timed launches were so much slower than the best so far that its
-- timing stopped before it was stable: its median is what those launches showed.
ALTER TABLE trials ADD COLUMN cut_short INTEGER NOT NULL DEFAULT 0 CHECK (cut_short IN (0, 1));

-- A run is known by a random UUID everywhere (`cutune merge` joins databases by it), and by
-- the process that runs it, so that a run whose process is gone is not left 'running'.
ALTER TABLE runs ADD COLUMN uuid TEXT;
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN host TEXT;
UPDATE runs SET uuid = lower(hex(randomblob(16))) WHERE uuid IS NULL;
CREATE UNIQUE INDEX runs_by_uuid ON runs (uuid);

-- One search of one variant for one problem on one device, within a run: how it was searched
-- and how it ended. A later run with the same variant version treats a search that ended
-- 'done' or 'spent' as tuned and measures nothing of it again (unless asked to retune).
--   done:        the strategy ended by itself (every config, or its evaluation budget)
--   spent:       the time the run gave it ran out
--   interrupted: Ctrl-C, a signal, or a process that died (found stale later)
--   failed:      an error stopped the run
CREATE TABLE searches (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    device_id   INTEGER NOT NULL REFERENCES devices (id),
    variant_id  INTEGER NOT NULL REFERENCES variants (id),
    problem_id  INTEGER NOT NULL REFERENCES problems (id),
    strategy    TEXT NOT NULL,
    nvalid      INTEGER NOT NULL,              -- valid configs of the space for this problem
    evaluated   INTEGER NOT NULL DEFAULT 0,    -- trials this search recorded
    seconds     REAL NOT NULL DEFAULT 0,       -- wall time spent on it
    status      TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'done', 'spent', 'interrupted', 'failed')),
    started_at  TEXT NOT NULL DEFAULT (datetime('now')),
    ended_at    TEXT
) STRICT;

CREATE INDEX searches_by_key ON searches (device_id, variant_id, problem_id);
CREATE INDEX searches_by_run ON searches (run_id);

-- A vendor library's time for the same problem on the same device (cuBLAS for matmul,
-- cudaMemcpy or CUB for the memory-bound ops), measured in the same worker process as the
-- tuned kernels it is compared with.
CREATE TABLE yardsticks (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs (id),
    device_id   INTEGER NOT NULL REFERENCES devices (id),
    problem_id  INTEGER NOT NULL REFERENCES problems (id),
    name        TEXT NOT NULL,                 -- e.g. 'cublasSgemm', 'cudaMemcpy'
    median_ms   REAL NOT NULL CHECK (median_ms > 0),
    samples     INTEGER,
    created_at  TEXT NOT NULL DEFAULT (datetime('now'))
) STRICT;

CREATE INDEX yardsticks_by_key ON yardsticks (device_id, problem_id);

-- SELECT * FROM search_details WHERE run_id = 3;   each search of a run, with names
CREATE VIEW search_details AS
SELECT s.id AS id, s.run_id AS run_id, d.name AS device, d.uuid AS device_uuid, p.op AS op,
       p.size AS size, v.name AS variant, v.version AS variant_version, s.strategy AS strategy,
       s.nvalid AS nvalid, s.evaluated AS evaluated, s.seconds AS seconds, s.status AS status,
       s.started_at AS started_at, s.ended_at AS ended_at
FROM searches s
JOIN devices d ON d.id = s.device_id
JOIN problems p ON p.id = s.problem_id
JOIN variants v ON v.id = s.variant_id;
