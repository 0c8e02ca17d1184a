#pragma once
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it (STYLE 3.5, 6.2).
static inline sqlite3_destructor_type CSQLite_SQLITE_TRANSIENT(void) { return SQLITE_TRANSIENT; }
