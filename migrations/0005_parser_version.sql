-- The version of the note parser each vault's notes were last read with
-- (vault.ParserVersion). When jarvis reads notes differently, the next
-- index run reads every note again, so that an upgrade takes effect
-- without --rebuild. Empty for vaults indexed before this version.
ALTER TABLE vaults ADD COLUMN parser TEXT NOT NULL DEFAULT '';
