#pragma once
#include <sqlite3.h>

// Extended result codes are expression macros, which Swift cannot import (STYLE 6.2).
static inline int CSQLite_SQLITE_CONSTRAINT_UNIQUE(void) { return SQLITE_CONSTRAINT_UNIQUE; }
static inline int CSQLite_SQLITE_CONSTRAINT_PRIMARYKEY(void) { return SQLITE_CONSTRAINT_PRIMARYKEY; }

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it (STYLE 3.5, 6.2).
static inline sqlite3_destructor_type CSQLite_SQLITE_TRANSIENT(void) { return SQLITE_TRANSIENT; }
