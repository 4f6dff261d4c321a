-- Migration 0002: lookups that had no exact answer, to be tuned; views for the shell.
--
-- An application's lookup (cutune/lookup.h) that fell back to a nearby size or another
-- device, or found nothing, can be recorded here; `cutune run --pending` tunes exactly
-- the pending keys of the device it runs on and marks them done.

CREATE TABLE requests (
    id           INTEGER PRIMARY KEY,
    device_uuid  TEXT NOT NULL,                 -- the device the application asked about
    device_name  TEXT,                          -- as the application knew it (may be NULL)
    cc_major     INTEGER,                       -- its compute capability, when known
    cc_minor     INTEGER,
    op           TEXT NOT NULL,
    size         TEXT NOT NULL,                 -- canonical 'MxNxK'
    answered_by  TEXT NOT NULL                  -- the step of the ladder that answered
                 CHECK (answered_by IN ('nearest', 'same_arch', 'none')),
    count        INTEGER NOT NULL DEFAULT 1,    -- lookups recorded (once per handle and key)
    status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    first_at     TEXT NOT NULL DEFAULT (datetime('now')),
    last_at      TEXT NOT NULL DEFAULT (datetime('now')),
    done_at      TEXT,
    run_id       INTEGER REFERENCES runs (id),  -- the run that tuned it
    UNIQUE (device_uuid, op, size)
) STRICT;

CREATE INDEX requests_pending ON requests (status, device_uuid, op);

-- SELECT * FROM pending_requests;   what `cutune run --pending` would tune, device by device
CREATE VIEW pending_requests AS
SELECT device_uuid, device_name, op, size, answered_by, count, first_at, last_at
FROM requests WHERE status = 'pending'
ORDER BY device_uuid, op, size;

-- SELECT * FROM run_summary;   one row per run: how many trials of each status, the best time
CREATE VIEW run_summary AS
SELECT r.id                                            AS run_id,
       r.started_at                                    AS started_at,
       r.finished_at                                   AS finished_at,
       r.status                                        AS run_status,
       r.op                                            AS op,
       d.name                                          AS device,
       count(t.id)                                     AS trials,
       sum(t.status = 'ok')                            AS ok,
       sum(t.status = 'wrong_result')                  AS wrong,
       sum(t.status NOT IN ('ok', 'wrong_result'))     AS other,
       min(CASE WHEN t.status = 'ok' THEN t.median_ms END) AS best_ms
FROM runs r
LEFT JOIN devices d ON d.id = r.device_id
LEFT JOIN trials t ON t.run_id = r.id
GROUP BY r.id;
