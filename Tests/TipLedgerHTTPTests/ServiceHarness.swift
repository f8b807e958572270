// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

/// A `TipLedgerService` on a ledger file in its own temporary directory, verifying with the test
/// PKI at the reference time: the router driven by building requests, without sockets.
final class ServiceHarness: Sendable {
    /// The bearer token of the query routes, unless a test configures another or none.
    static let token = "router-test-token-5f0c2b9e71d4"
    /// The account `TestChains.transaction` puts in its transactions.
    static let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    let directory: TemporaryDirectory
    let path: String
    let ledger: Ledger
    let service: TipLedgerService
    /// What the service reported through its log (failures the responses do not describe).
    let logged = LineRecorder()

    /// `prepare` may change the ledger file before the service opens it (damage it, say).
    init(
        apiToken: String? = ServiceHarness.token, finishesTransactions: Bool = true,
        queryEnvironments: [AppStoreEnvironment]? = nil, verifier: Verifier = TestChains.standardVerifier,
        writeProbeInterval: Duration = .seconds(1), writeQueueLimit: Int = GroupCommitter.defaultQueueLimit,
        verificationThreads: Int? = nil, prepare: (String) throws -> Void = { _ in }
    ) throws {
        directory = try TemporaryDirectory()
        path = directory.file("ledger.sqlite")
        try prepare(path)
        let clock = WallClock.fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds))
        ledger = try Ledger.open(path: path, clock: clock)
        let logged = logged
        service = TipLedgerService(
            verifier: verifier, ledger: ledger, apiToken: apiToken,
            finishesTransactions: finishesTransactions, queryEnvironments: queryEnvironments, clock: clock,
            writeProbeInterval: writeProbeInterval, writeQueueLimit: writeQueueLimit,
            verificationThreads: verificationThreads, log: { logged.append($0) })
    }

    /// Answers a request built from its parts.
    func request(
        _ method: String, _ path: String, query: HTTPQuery = [:], headers: HTTPHeaders = [:], body: [UInt8] = []
    ) -> HTTPResponse {
        service.handle(
            HTTPRequest(
                method: method, path: path, query: query, headers: headers, body: body, remoteAddress: "127.0.0.1"))
    }

    /// `POST path` with `body` as UTF-8.
    func post(_ path: String, _ body: String) -> HTTPResponse {
        request("POST", path, body: Array(body.utf8))
    }

    /// Posts a signed transaction as the raw body.
    func postTransaction(_ jws: String) -> HTTPResponse {
        post("/v1/transactions", jws)
    }

    /// Posts a signed notification inside the App Store's webhook body.
    func postNotification(_ jws: String) -> HTTPResponse {
        post("/v1/notifications", WebhookBody.wrapping(jws))
    }

    /// `GET path` with `Authorization: Bearer token` (no header when `token` is nil).
    func get(_ path: String, query: HTTPQuery = [:], token: String? = ServiceHarness.token) -> HTTPResponse {
        request("GET", path, query: query, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    /// Rows in a ledger table.
    func count(_ table: String) throws -> Int64 {
        try integer("SELECT count(*) FROM \(table)")
    }

    /// The first column of the first row of `sql` on the service's own connection.
    func integer(_ sql: String, _ values: [any SQLBindable] = []) throws -> Int64 {
        try ledger.integer(sql, values)
    }

    /// The state column of a recorded Sandbox transaction, or nil when it is not in the ledger.
    func state(of transactionId: String) throws -> String? {
        try ledger.withDatabase { database in
            try database.queryOne(
                "SELECT state FROM transactions WHERE environment = 'Sandbox' AND transaction_id = ?",
                transactionId
            ) { $0.text(0) } ?? nil
        }
    }
}

extension Ledger {
    /// The first column of the first row of `sql`, an integer (0 when there is no row).
    func integer(_ sql: String, _ values: [any SQLBindable] = []) throws -> Int64 {
        try withDatabase { database in try database.query(sql, values) { $0.int64(0) }.first ?? 0 }
    }

    /// The first column of every row of `sql`, as text.
    func texts(_ sql: String, _ values: [any SQLBindable] = []) throws -> [String] {
        try withDatabase { database in try database.query(sql, values) { $0.text(0) ?? "" } }
    }
}

/// Lines collected from several threads.
final class LineRecorder: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ line: String) { storage.withLock { $0.append(line) } }

    var lines: [String] { storage.withLock { $0 } }
}

/// A response body parsed as a JSON object (by Foundation, independently of the project's writer).
func jsonObject(_ body: [UInt8]) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(body))
    guard let object = value as? [String: Any] else { throw JSONShapeError(body: body) }
    return object
}

/// A response body parsed as a JSON object.
func jsonObject(_ response: HTTPResponse) throws -> [String: Any] {
    try jsonObject(response.body)
}

/// A body that is JSON but not an object.
struct JSONShapeError: Error, CustomStringConvertible {
    let body: [UInt8]

    var description: String { "not a JSON object: \(String(decoding: body.prefix(200), as: UTF8.self))" }
}

/// Text that must never reach a response body: SQL, SQLite's words, stack or file details.
let internalTextMarkers = [
    "SELECT", "INSERT", "UPDATE ", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "sqlite", "SQLite", "no such table",
    "database is locked", "ledger.sqlite", "/tmp", ".swift", "Fatal",
]

/// The markers of `internalTextMarkers` found in `body`.
func internalText(in body: [UInt8]) -> [String] {
    let text = String(decoding: body, as: UTF8.self)
    return internalTextMarkers.filter { text.contains($0) }
}
