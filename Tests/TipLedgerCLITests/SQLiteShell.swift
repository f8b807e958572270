// SPDX-License-Identifier: GPL-3.0-or-later

/// The `sqlite3` command-line shell, to look inside a ledger independently of the project's
/// store code (and to make databases the project would refuse to make).
enum SQLiteShell {
    static let executable = "/usr/bin/sqlite3"

    /// The rows `sql` returns, one line each, columns separated by `|`, NULL shown as `NULL`.
    static func rows(_ database: String, _ sql: String, in directory: String) async throws -> [String] {
        let result = try await Subprocess(
            executable: executable, arguments: ["-batch", "-bail", "-nullvalue", "NULL", database, sql],
            environment: Subprocess.baseEnvironment(), directory: directory
        ).run()
        guard result.exited(0), result.err.isEmpty else { throw SQLiteShellError(sql: sql, output: result) }
        return result.outLines
    }

    /// The single value `sql` returns.
    static func value(_ database: String, _ sql: String, in directory: String) async throws -> String {
        let rows = try await rows(database, sql, in: directory)
        guard rows.count == 1 else { throw SQLiteShellError(sql: sql, output: nil) }
        return rows[0]
    }
}

/// The `sqlite3` shell failed or answered unexpectedly.
struct SQLiteShellError: Error, CustomStringConvertible {
    let sql: String
    let output: ProcessOutput?
    var description: String { "sqlite3 failed on \(sql): \(output?.summary ?? "not exactly one row")" }
}
