-- The vaults jarvis has indexed. A vault is known by its name; the path may
-- change when a user moves the folder.
CREATE TABLE vaults (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL UNIQUE,
    path            TEXT    NOT NULL,
    -- Unix milliseconds of the last index run that finished.
    last_indexed_ms INTEGER,
    -- Set in the same transaction as any change to files or aliases and
    -- cleared once every link of the vault has been resolved again, so an
    -- index run cut off in between is finished by the next one.
    resolve_pending INTEGER NOT NULL DEFAULT 0
);

-- Every file of a vault: Markdown notes and attachments (images, PDFs,
-- canvases, bases, anything else). Paths are vault-relative with '/'.
CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    vault_id    INTEGER NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    path        TEXT    NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('note', 'attachment')),
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    -- SHA-256 of the content, hex; empty for attachments, which are never read.
    hash        TEXT    NOT NULL DEFAULT '',
    title       TEXT    NOT NULL DEFAULT '',
    word_count  INTEGER NOT NULL DEFAULT 0,
    -- JSON object of every frontmatter property, or NULL without frontmatter.
    frontmatter TEXT,
    UNIQUE (vault_id, path)
);

CREATE TABLE aliases (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    alias   TEXT    NOT NULL
);
CREATE INDEX aliases_file ON aliases(file_id);

CREATE TABLE tags (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    tag     TEXT    NOT NULL,
    -- 0 for a frontmatter tag.
    line    INTEGER NOT NULL,
    inline  INTEGER NOT NULL
);
CREATE INDEX tags_file ON tags(file_id);
CREATE INDEX tags_tag ON tags(tag COLLATE NOCASE);

CREATE TABLE headings (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ord     INTEGER NOT NULL,
    level   INTEGER NOT NULL,
    text    TEXT    NOT NULL,
    line    INTEGER NOT NULL,
    PRIMARY KEY (file_id, ord)
) WITHOUT ROWID;

CREATE TABLE blocks (
    file_id  INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    block_id TEXT    NOT NULL,
    line     INTEGER NOT NULL
);
CREATE INDEX blocks_file ON blocks(file_id);

-- Internal links. target_id is the file the link resolves to, or NULL while
-- it is unresolved; target keeps the text as written either way.
CREATE TABLE links (
    id        INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ord       INTEGER NOT NULL,
    kind      TEXT    NOT NULL CHECK (kind IN ('link', 'embed', 'markdown', 'frontmatter')),
    target    TEXT    NOT NULL,
    subpath   TEXT    NOT NULL DEFAULT '',
    display   TEXT    NOT NULL DEFAULT '',
    line      INTEGER NOT NULL,
    context   TEXT    NOT NULL DEFAULT '',
    target_id INTEGER REFERENCES files(id) ON DELETE SET NULL
);
CREATE INDEX links_source ON links(source_id);
CREATE INDEX links_target ON links(target_id);

CREATE TABLE external_links (
    source_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    url       TEXT    NOT NULL,
    text      TEXT    NOT NULL DEFAULT '',
    line      INTEGER NOT NULL
);
CREATE INDEX external_links_source ON external_links(source_id);

-- Problems met while indexing that did not stop the rest: invalid YAML or
-- UTF-8 in a note (file_id set, replaced whenever the note is parsed again),
-- or a file the scan had to skip (file_id NULL, replaced on every run).
CREATE TABLE warnings (
    vault_id INTEGER NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    file_id  INTEGER REFERENCES files(id) ON DELETE CASCADE,
    path     TEXT    NOT NULL,
    message  TEXT    NOT NULL
);
CREATE INDEX warnings_vault ON warnings(vault_id);
CREATE INDEX warnings_file ON warnings(file_id);
