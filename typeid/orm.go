package typeid

// GormDataType returns "uuid", the column type GORM's AutoMigrate gives an
// ID field with no type tag (GORM's default for a [16]byte is text). The
// prefix lives in the Go type, not in the column, as for Value.
func (ID[P]) GormDataType() string { return "uuid" }

// GormDataType returns "uuid", the column type GORM's AutoMigrate gives a
// NullID field with no type tag (GORM's default for it is bytea).
func (NullID[P]) GormDataType() string { return "uuid" }
