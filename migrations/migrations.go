// Package migrations holds the SQL that builds the jarvis database, one
// numbered file per schema version. The store package applies them in order,
// each in its own transaction.
package migrations

import "embed"

// FS holds every migration file. Names are NNNN_description.sql; the number
// is the schema version the file brings the database to.
//
//go:embed *.sql
var FS embed.FS
