package ulidtype

// The column types an ORM's schema builder gives these types when a struct
// field has no type tag. GORM calls a plain GormDataType() string method (no
// GORM import is needed to declare it) and gorm.io/driver/postgres writes the
// string it returns into CREATE TABLE as it is. uuid, not the pgid.ulid
// domain: it needs no pgid schema in the database, and GORM compares a
// column's type by its base type name, so a second AutoMigrate sees a uuid
// column as unchanged (a domain would be altered again on every migrate).
const (
	columnType      = "uuid"
	arrayColumnType = "uuid[]"
)

// GormDataType returns "uuid", the column type GORM's AutoMigrate gives a
// ULID field with no type tag (GORM's default for a [16]byte is text).
func (ULID) GormDataType() string { return columnType }

// GormDataType returns "uuid", the column type GORM's AutoMigrate gives a
// NullULID field with no type tag (GORM's default for it is bytea).
func (NullULID) GormDataType() string { return columnType }

// GormDataType returns "uuid[]", the column type GORM's AutoMigrate gives a
// Slice field with no type tag (GORM refuses a Slice without it).
func (Slice) GormDataType() string { return arrayColumnType }

// GormDataType returns "uuid[]", the column type GORM's AutoMigrate gives a
// NullSlice field with no type tag.
func (NullSlice) GormDataType() string { return arrayColumnType }
