-- Tags are compared by their key (vault.TagKey): composed Unicode form and
-- lower case, so that the filter "été" keeps a note tagged #Été through
-- the index as it does through the scan of the files. COLLATE NOCASE,
-- used until now, folds ASCII letters only. The indexer writes fold beside
-- each tag.
ALTER TABLE tags ADD COLUMN fold TEXT NOT NULL DEFAULT '';

-- Tags already stored: a tag of ASCII characters alone (as many bytes as
-- characters) has lower(tag) as its key, exactly, and is found as before
-- from the start. The others need Unicode's case rules, which SQLite's
-- lower() lacks: the next index run stores their keys without reading a
-- note (index.keyTags). Until then a filter by such a tag finds no note
-- through the index.
UPDATE tags SET fold = lower(tag) WHERE length(tag) = length(CAST(tag AS BLOB));

-- A tag and the tags nested under it are one range of keys ("été", then
-- "été/" up to "été0"), read through this index.
DROP INDEX tags_tag;
CREATE INDEX tags_fold ON tags(fold);
