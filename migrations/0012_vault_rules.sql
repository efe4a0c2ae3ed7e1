-- The exclude patterns a vault was indexed under, as a JSON array sorted
-- and without repeats ('[]' for none): one database holds a vault under
-- one name, one folder and one set of rules, and a run that gives the
-- name another folder or other rules is refused rather than let two sets
-- of rules delete and add each other's notes in turn. NULL for a vault
-- indexed before this version: the next run records its rules.
ALTER TABLE vaults ADD COLUMN exclude TEXT;
