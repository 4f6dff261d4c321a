-- Migration 0004: what cutune itself checked. A trial that came from a file (a Kernel Tuner
-- cache) was never checked by cutune on its device, so it may never be a best; and a best
-- may answer other sizes (an application's nearest-size fallback) only once its config has
-- been checked at a ragged size near its own.

-- 1: cutune launched this config on a poisoned output and its op's check passed (or
-- failed: the status says); 0: measured elsewhere (imported) and never checked here.
ALTER TABLE trials ADD COLUMN checked INTEGER NOT NULL DEFAULT 1 CHECK (checked IN (0, 1));

-- Trials imported before this migration were recorded as checked; they were not.
UPDATE trials SET checked = 0
WHERE run_id IN (SELECT id FROM runs WHERE strategy = 'kernel-tuner');

-- A best that points at an imported trial goes back to the fastest checked trial of its
-- (device, problem), or goes away when there is none.
UPDATE best SET updated_at = datetime('now'), trial_id = (
    SELECT t.id FROM trials t
    WHERE t.device_id = best.device_id AND t.problem_id = best.problem_id
      AND t.status = 'ok' AND t.checked = 1 AND t.median_ms > 0
    ORDER BY t.median_ms, t.id LIMIT 1)
WHERE trial_id IN (SELECT id FROM trials WHERE checked = 0)
  AND EXISTS (SELECT 1 FROM trials t
              WHERE t.device_id = best.device_id AND t.problem_id = best.problem_id
                AND t.status = 'ok' AND t.checked = 1 AND t.median_ms > 0);
DELETE FROM best WHERE trial_id IN (SELECT id FROM trials WHERE checked = 0);

-- A config checked at a ragged size near the size it was tuned for: dimensions that are
-- multiples of no tile (the op says how it makes one; by default each even dimension less
-- one). A config that failed here, or was never checked so, answers only its own size.
--   passed: 1 the op's check passed at ragged_size; 0 it did not (message says why: a wrong
--           result, a launch error, a config that the space does not allow there)
CREATE TABLE ragged_checks (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs (id),
    device_id   INTEGER NOT NULL REFERENCES devices (id),
    variant_id  INTEGER NOT NULL REFERENCES variants (id),
    problem_id  INTEGER NOT NULL REFERENCES problems (id),   -- the size it was tuned for
    config      TEXT NOT NULL,
    ragged_size TEXT NOT NULL,                               -- canonical, of the same op
    passed      INTEGER NOT NULL CHECK (passed IN (0, 1)),
    error       REAL,                                        -- the check's error measure
    message     TEXT,
    created_at  TEXT NOT NULL DEFAULT (datetime('now')),
    UNIQUE (device_id, variant_id, problem_id, config)
) STRICT;
