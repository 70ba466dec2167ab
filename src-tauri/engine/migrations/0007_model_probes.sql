-- Schema v7: what the tool-use probe found of each provider's model — whether it calls tools
-- natively, only in prompt mode (or held to a grammar, for the built-in model), not at all,
-- or whether the probe could not tell (with the reason). One row per provider and model, replaced by
-- each new probe; gone with its provider. Auto tool mode reads it (agent/probed_modes.rs).

CREATE TABLE model_probes (
    provider_id TEXT NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    model       TEXT NOT NULL,
    support     TEXT NOT NULL CHECK (support IN ('native', 'prompt', 'none', 'unknown')),
    note        TEXT,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    checked_at  INTEGER NOT NULL,
    PRIMARY KEY (provider_id, model)
) STRICT;
