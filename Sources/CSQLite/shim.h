#pragma once
#include <sqlite3.h>

// Extended result codes are expression macros, which Swift cannot import (STYLE 6.2).
static inline int CSQLite_SQLITE_CONSTRAINT_UNIQUE(void) { return SQLITE_CONSTRAINT_UNIQUE; }
static inline int CSQLite_SQLITE_CONSTRAINT_PRIMARYKEY(void) { return SQLITE_CONSTRAINT_PRIMARYKEY; }
