// SQLite as tipledger uses it, with wrappers for what Swift cannot import directly.
#ifndef TIPLEDGER_CSQLITE_SHIM_H
#define TIPLEDGER_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer: tells SQLite to copy bound bytes now.
static inline sqlite3_destructor_type tl_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic; this is the (int, int*) form used by the DBCONFIG_ENABLE_* and
// DBCONFIG_DEFENSIVE options.
static inline int tl_sqlite_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

// sqlite3_config is variadic too. Memory statistics take a global mutex on every allocation,
// and nothing reads them; turned off before the first connection opens.
static inline int tl_sqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

#endif
