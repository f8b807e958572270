// SPDX-License-Identifier: GPL-3.0-or-later
//
// SQLite's own share of recording a token, for scripts/bench: the rows one `verify` run wrote
// into a fresh ledger are written again, into a new file with the same schema and page size, by
// the statements `verify` runs per token (docs/ledger.md) — the two lookups (the transaction by
// its key, the token by its digest) and the four inserts (evidence, transaction, its `recorded`
// and `finished` events) — prepared once, bound value by value, committed every N tokens, in
// WAL mode with synchronous=FULL and a 32 MiB page cache, as the ledger's writer does. No
// parsing, no verification, no output: what is left is what SQLite itself costs.
//
//     sqlite-floor SOURCE-LEDGER NEW-FILE [COMMIT-EVERY]
//
// SOURCE-LEDGER is a ledger `verify` made from signed transactions only (one evidence row, one
// transaction and its two events per token). Prints one JSON line: the tokens, the CPU seconds
// (user and system) of writing and closing the new file, and the elapsed seconds.

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "sqlite-floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
    exit(1);
}

static void exec(sqlite3 *db, const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) fail(db, sql);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL) != SQLITE_OK) fail(db, sql);
    return statement;
}

// Rows of one query, each a copy of its column values.
typedef struct {
    int count, columns;
    sqlite3_value **values;  // count × columns
} Rows;

static Rows load(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement = prepare(db, sql);
    Rows rows = {0, sqlite3_column_count(statement), NULL};
    int capacity = 0;
    while (sqlite3_step(statement) == SQLITE_ROW) {
        if (rows.count == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            rows.values = realloc(rows.values, sizeof(sqlite3_value *) * capacity * rows.columns);
            if (!rows.values) fail(NULL, "loading rows");
        }
        for (int column = 0; column < rows.columns; column++) {
            rows.values[rows.count * rows.columns + column] = sqlite3_value_dup(sqlite3_column_value(statement, column));
        }
        rows.count++;
    }
    sqlite3_finalize(statement);
    return rows;
}

static sqlite3_value *value(const Rows *rows, int row, int column) { return rows->values[row * rows->columns + column]; }

// Binds `count` values of row `row`, starting at its column `first`, to parameters 1...count.
static void bind(sqlite3_stmt *statement, const Rows *rows, int row, int first, int count) {
    for (int index = 0; index < count; index++) sqlite3_bind_value(statement, index + 1, value(rows, row, first + index));
}

static void step(sqlite3 *db, sqlite3_stmt *statement) {
    int status;
    while ((status = sqlite3_step(statement)) == SQLITE_ROW) {}
    if (status != SQLITE_DONE) fail(db, sqlite3_sql(statement));
    sqlite3_reset(statement);
}

static double cpuSeconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static double monotonicSeconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

#define EVIDENCE_COLUMNS \
    "sha256, kind, header_id, body, environment, bundle_id, signed_date_ms, transaction_id, notification_uuid, " \
    "verifier_fingerprint, clock_free, received_ms"
#define TRANSACTION_COLUMNS \
    "environment, transaction_id, original_transaction_id, app_transaction_id, account, bundle_id, product_id, " \
    "product_type, quantity, price_milli, currency, storefront, storefront_id, ownership, purchase_date_ms, " \
    "signed_date_ms, revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, revoked, " \
    "evidence_id, recorded_ms, finished_ms"
#define TRANSACTION_EVIDENCE_ID 21  // the column of evidence_id in TRANSACTION_COLUMNS, from 0
#define EVENT_COLUMNS "at_ms, environment, transaction_id, source, currency, gross_delta_milli, detail, kind"

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: sqlite-floor SOURCE-LEDGER NEW-FILE [COMMIT-EVERY]\n");
        return 2;
    }
    int commitEvery = argc == 4 ? atoi(argv[3]) : 8192;
    sqlite3 *source;
    if (sqlite3_open_v2(argv[1], &source, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(source, argv[1]);
    Rows evidence = load(source, "SELECT " EVIDENCE_COLUMNS " FROM evidence ORDER BY id");
    Rows transactions = load(source, "SELECT " TRANSACTION_COLUMNS " FROM transactions ORDER BY id");
    Rows events = load(source, "SELECT " EVENT_COLUMNS " FROM events ORDER BY id");
    int tokens = transactions.count;
    if (evidence.count != tokens || events.count != 2 * tokens) {
        fprintf(stderr, "sqlite-floor: %s holds %d tokens, %d transactions and %d events; it must hold one "
                "transaction and two events per token (verify a file of signed transactions only)\n",
                argv[1], evidence.count, tokens, events.count);
        return 1;
    }
    for (int token = 0; token < tokens; token++) {
        if (strcmp((const char *)sqlite3_value_text(value(&events, 2 * token, 7)), "recorded") != 0 ||
            strcmp((const char *)sqlite3_value_text(value(&events, 2 * token + 1, 7)), "finished") != 0) {
            fprintf(stderr, "sqlite-floor: the events of token %d are not `recorded` then `finished`\n", token + 1);
            return 1;
        }
    }

    remove(argv[2]);
    char sidecar[4096];
    snprintf(sidecar, sizeof sidecar, "%s-wal", argv[2]);
    remove(sidecar);
    sqlite3 *db;
    if (sqlite3_open(argv[2], &db) != SQLITE_OK) fail(db, argv[2]);
    sqlite3_stmt *pageSize = prepare(source, "PRAGMA page_size");
    sqlite3_step(pageSize);
    char pragmas[256];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA page_size = %d; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; "
             "PRAGMA cache_size = -32768; PRAGMA foreign_keys = ON",
             sqlite3_column_int(pageSize, 0));
    sqlite3_finalize(pageSize);
    exec(db, pragmas);
    exec(db, "BEGIN");
    sqlite3_stmt *schema = prepare(
        source, "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite%' ORDER BY rowid");
    while (sqlite3_step(schema) == SQLITE_ROW) exec(db, (const char *)sqlite3_column_text(schema, 0));
    sqlite3_finalize(schema);
    char attach[4200];
    sqlite3_snprintf(sizeof attach, attach, "ATTACH %Q AS source", argv[1]);
    exec(db, attach);
    exec(db, "INSERT INTO jws_headers SELECT * FROM source.jws_headers");
    exec(db, "COMMIT");
    exec(db, "DETACH source");
    sqlite3_close(source);

    // The SQL of TransactionAmounts.selectByKey, EvidenceStore.selectEvidenceId, EvidenceStore's
    // and TransactionApplier's inserts, and EventLog.insertRecorded and insertFinished.
    sqlite3_stmt *selectTransaction = prepare(
        db, "SELECT gross_milli, refunded_milli, revoked_milli, state, signed_date_ms, finished_ms IS NOT NULL, id "
            "FROM transactions WHERE environment = ? AND transaction_id = ?");
    sqlite3_stmt *selectEvidence =
        prepare(db, "SELECT id FROM evidence WHERE substr(sha256, 1, 8) = substr(?1, 1, 8) AND +sha256 = ?1");
    sqlite3_stmt *insertEvidence =
        prepare(db, "INSERT INTO evidence (" EVIDENCE_COLUMNS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    sqlite3_stmt *insertTransaction = prepare(
        db, "INSERT INTO transactions (" TRANSACTION_COLUMNS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (environment, transaction_id) DO NOTHING");
    const char *insertEvent =
        "INSERT INTO events (at_ms, environment, transaction_id, kind, source, currency, gross_delta_milli, "
        "refunded_delta_milli, revoked_delta_milli, detail) ";
    char sql[1024];
    snprintf(sql, sizeof sql, "%s VALUES (?1, ?2, ?3, 'recorded', ?4, ?5, ?6, 0, 0, ?7)", insertEvent);
    sqlite3_stmt *insertRecorded = prepare(db, sql);
    snprintf(sql, sizeof sql, "%s VALUES (?1, ?2, ?3, 'finished', ?4, NULL, 0, 0, 0, NULL)", insertEvent);
    sqlite3_stmt *insertFinished = prepare(db, sql);

    double startedCPU = cpuSeconds(), started = monotonicSeconds();
    exec(db, "BEGIN IMMEDIATE");
    for (int token = 0; token < tokens; token++) {
        bind(selectTransaction, &transactions, token, 0, 2);
        step(db, selectTransaction);
        sqlite3_bind_value(selectEvidence, 1, value(&evidence, token, 0));
        step(db, selectEvidence);
        bind(insertEvidence, &evidence, token, 0, 12);
        step(db, insertEvidence);
        bind(insertTransaction, &transactions, token, 0, 24);
        sqlite3_bind_int64(insertTransaction, TRANSACTION_EVIDENCE_ID + 1, sqlite3_last_insert_rowid(db));
        step(db, insertTransaction);
        bind(insertRecorded, &events, 2 * token, 0, 7);
        step(db, insertRecorded);
        bind(insertFinished, &events, 2 * token + 1, 0, 4);
        step(db, insertFinished);
        if ((token + 1) % commitEvery == 0) exec(db, "COMMIT; BEGIN IMMEDIATE");
    }
    exec(db, "COMMIT");
    sqlite3_stmt *statements[] = {selectTransaction, selectEvidence,  insertEvidence,
                                  insertTransaction, insertRecorded, insertFinished};
    for (size_t index = 0; index < sizeof statements / sizeof *statements; index++) sqlite3_finalize(statements[index]);
    if (sqlite3_close(db) != SQLITE_OK) fail(db, "closing");
    printf("{\"tokens\": %d, \"cpu_seconds\": %.4f, \"seconds\": %.4f}\n", tokens, cpuSeconds() - startedCPU,
           monotonicSeconds() - started);
    return 0;
}
