package objectidtype

// The column types an ORM's schema builder gives these types when a struct
// field has no type tag. GORM calls a plain GormDataType() string method (no
// GORM import is needed to declare it) and gorm.io/driver/postgres writes the
// string it returns into CREATE TABLE as it is. bytea, not the pgid.objectid
// domain: GORM compares a column's type by its base type name, so it would
// ALTER a pgid.objectid column again on every AutoMigrate; bytea also needs
// no pgid schema in the database.
const (
	columnType      = "bytea"
	arrayColumnType = "bytea[]"
)

// GormDataType returns "bytea", the column type GORM's AutoMigrate gives an
// ObjectID field with no type tag.
func (ObjectID) GormDataType() string { return columnType }

// GormDataType returns "bytea", the column type GORM's AutoMigrate gives a
// NullObjectID field with no type tag (GORM's default for it is bytea too,
// but from the Valuer's result, not by design).
func (NullObjectID) GormDataType() string { return columnType }

// GormDataType returns "bytea[]", the column type GORM's AutoMigrate gives a
// Slice field with no type tag (GORM refuses a Slice without it).
func (Slice) GormDataType() string { return arrayColumnType }

// GormDataType returns "bytea[]", the column type GORM's AutoMigrate gives a
// NullSlice field with no type tag.
func (NullSlice) GormDataType() string { return arrayColumnType }
