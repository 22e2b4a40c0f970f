package typeid

// GormDataType returns "uuid", the column type GORM's AutoMigrate gives an
// ID field with no type tag (GORM has no column type of its own for it). The
// prefix lives in the Go type, not in the column, as for Value.
func (ID[P]) GormDataType() string { return "uuid" }

// GormDataType returns "uuid", the column type GORM's AutoMigrate gives a
// NullID field with no type tag (GORM's default for it is bytea).
func (NullID[P]) GormDataType() string { return "uuid" }

// GormDataType names the column type GORM's AutoMigrate creates for a
// Slice: uuid[].
func (Slice[P]) GormDataType() string { return "uuid[]" }

// GormDataType names the column type GORM's AutoMigrate creates for a
// NullSlice: uuid[].
func (NullSlice[P]) GormDataType() string { return "uuid[]" }
