// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP contract, `docs/openapi.json`, held against the real `tipledger serve`: every answer
/// the document lists is given as it says (status, required header fields, content type, body
/// schema), HEAD answers as GET without the body, and a method a route does not take or a path no
/// route has is answered as the document says, so every route the service answers is in it.
@Suite(.serialized) struct OpenAPIContractTests {
    static let account = ServiceHarness.account
    static let bearer = [("Authorization", "Bearer \(LiveService.apiToken)")]
    /// The token as the password of HTTP Basic authentication, as a browser sends it.
    static let basic = [
        ("Authorization", "Basic " + Data("tipledger:\(LiveService.apiToken)".utf8).base64EncodedString())
    ]
    /// The methods probed on every path.
    static let methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    /// Every answer the document lists has a probe below, and every probe's answer is listed:
    /// the document cannot promise an answer nothing asks for, nor leave out one that is given.
    @Test func everyDocumentedAnswerHasAProbe() throws {
        let document = try OpenAPIDocument()
        var probed: Set<OpenAPIDocument.Answer> = []
        for probe in try ContractProbe.all() {
            let template = document.template(matching: probe.path)
            let path = try #require(template, "\(probe.name): no documented path")
            for method in probe.methods {
                probed.insert(OpenAPIDocument.Answer(path: path, method: method, status: probe.status))
            }
        }

        #expect(document.answers.subtracting(probed).sorted() == [], "documented, never asked for")
        #expect(probed.subtracting(document.answers).sorted() == [], "asked for, not documented")
    }

    /// The codes the document lists are the closed sets the service answers with: every
    /// rejection code with its Apple status, and every code of the service's own errors.
    @Test func theDocumentListsEveryErrorCode() throws {
        let document = try OpenAPIDocument()
        func values(_ pointer: String) -> Set<String> {
            let listed = JSONSchema.resolve(pointer, in: document.root)
            guard case .array(let values)? = listed else { return [] }
            return Set(values.compactMap(\.stringValue))
        }

        let codes = VerificationError.Code.allCases
        #expect(values("#/components/schemas/Rejection/properties/error/enum") == Set(codes.map(\.rawValue)))
        #expect(values("#/components/schemas/Rejection/properties/appleStatus/enum") == Set(codes.map(\.appleStatus)))
        #expect(
            values("#/components/schemas/ServiceError/properties/error/enum")
                == Set(ServiceErrorCode.allCases.map(\.rawValue)))
    }

    /// Each probe, on the service it needs and in order (a restore finds what was posted before
    /// it), gets the documented status, and its answer fits what the document says of it; a
    /// probe of a GET route is sent as HEAD too.
    @Test(arguments: ContractService.allCases)
    func everyProbeIsAnsweredAsTheDocumentSays(_ kind: ContractService) throws {
        let document = try OpenAPIDocument()
        let service = try kind.start()
        for probe in try ContractProbe.all() where probe.service == kind {
            let template = document.template(matching: probe.path)
            let path = try #require(template, "\(probe.name): no documented path")
            for method in probe.methods {
                let answer = try probe.send(method, to: service)
                let documented = OpenAPIDocument.Answer(path: path, method: method, status: answer.status)
                #expect(answer.status == probe.status, "\(probe.name) \(method): \(answer.bodyText.prefix(300))")
                let listed = document.response(for: documented)
                let response = try #require(listed, "\(probe.name): \(documented) is not documented")
                let problems = document.problems(of: answer, against: response)
                #expect(problems.isEmpty, "\(probe.name) \(method): \(problems)")
            }
        }
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")
    }

    /// A method a documented route does not take gets the path's `x-other-methods` answer (405)
    /// with `Allow` naming exactly the documented methods; without an API token the query
    /// routes answer 404 to every method, as their documented 404 says.
    @Test(arguments: [true, false])
    func methodsARouteDoesNotTakeAreAnsweredAsTheDocumentSays(withToken: Bool) throws {
        let document = try OpenAPIDocument()
        let service = try withToken ? LiveService() : LiveService(environment: [:])
        for template in document.pathTemplates {
            let path = template.replacing("{account}", with: Self.account)
            let documented = document.methods(of: template)
            let isQuery = documented.contains("GET") && template.hasPrefix("/v1/")
            for method in Self.methods where !documented.contains(method) || (isQuery && !withToken) {
                let connection = try service.connect()
                try connection.sendRequest(method, path, headers: Self.bearer)
                let answer = try method == "HEAD" ? connection.readResponseHead() : connection.readResponse()
                let expected: JSONValue?
                if isQuery && !withToken {
                    #expect(answer.status == 404, "\(method) \(template)")
                    expected = document.response(
                        for: OpenAPIDocument.Answer(path: template, method: "GET", status: 404))
                } else {
                    #expect(answer.status == 405, "\(method) \(template)")
                    let allowed = Set((answer.headers["Allow"] ?? "").split(separator: ", ").map(String.init))
                    #expect(allowed == Set(documented), "\(method) \(template): Allow \(allowed)")
                    expected = document.otherMethodsResponse(of: template)
                }
                let response = try #require(expected, "\(template) documents no such answer")
                let problems = method == "HEAD" ? [] : document.problems(of: answer, against: response)
                #expect(problems.isEmpty, "\(method) \(template): \(problems)")
            }
        }
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")
    }

    /// Paths beside the documented ones (a prefix, a longer path, a trailing slash, another
    /// version) match no documented template and are answered 404 as `x-unknown-path` says.
    @Test func pathsTheDocumentDoesNotListAreNotFound() throws {
        let document = try OpenAPIDocument()
        let service = try LiveService()
        let paths = [
            "/", "/v1", "/v1/", "/v1/accounts", "/v1/accounts/\(Self.account)",
            "/v1/accounts/\(Self.account)/transactions/2000000000000611",
            "/v1/transactions/2000000000000611", "/v1/report/", "/v2/report", "/v1/report.html/", "/v1/report.json",
            "/healthz/", "//healthz",
            "/metrics.txt", "/v1/notifications/test", "/V1/REPORT",
        ]
        let unknown = document.unknownPathResponse
        let response = try #require(unknown, "the document says nothing of unknown paths")
        for path in paths {
            #expect(document.template(matching: path) == nil, "\(path) is documented")
            for method in ["GET", "POST"] {
                let answer = try service.connect().exchange(method, path, headers: Self.bearer)
                #expect(answer.status == 404, "\(method) \(path)")
                let problems = document.problems(of: answer, against: response)
                #expect(problems.isEmpty, "\(method) \(path): \(problems)")
            }
        }
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")
    }
}

/// The services the probes need.
enum ContractService: String, CaseIterable, Sendable {
    /// A ledger that takes every request, with the API token configured.
    case withToken
    /// No API token: the query routes do not exist.
    case withoutToken
    /// A ledger whose transactions table and indexes are damaged: reads and writes of
    /// transactions fail, and so does health once a write has.
    case damaged

    func start() throws -> LiveService {
        switch self {
        case .withToken:
            // The consumption request is signed now, so it is still open: by a chain valid now,
            // trusted beside the standard one.
            let directory = try TemporaryDirectory()
            let current = directory.file("current-root.cer")
            let standard = directory.file("standard-root.cer")
            try Data(ContractProbe.currentChain.root.derEncoded).write(to: URL(fileURLWithPath: current))
            try Data(TestChains.standard.root.derEncoded).write(to: URL(fileURLWithPath: standard))
            return try LiveService(directory: directory, trust: ["--root", standard, "--root", current])
        case .withoutToken:
            return try LiveService(environment: [:])
        case .damaged:
            let directory = try TemporaryDirectory()
            try Self.damageTransactions(at: directory.file("ledger.sqlite"))
            return try LiveService(directory: directory)
        }
    }

    /// Makes a ledger at `path`, then overwrites the page type of the first page (the root) of
    /// the transactions table and of each of its indexes with one SQLite knows none of.
    static func damageTransactions(at path: String) throws {
        var roots: [Int] = []
        var pageSize = 0
        do {
            let ledger = try Ledger.open(path: path)
            roots = try ledger.texts(
                "SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'transactions' AND rootpage > 0"
            ).compactMap { Int($0) }
            pageSize = Int(try ledger.integer("PRAGMA page_size"))
        }
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? file.close() }
        for root in roots {
            try file.seek(toOffset: UInt64((root - 1) * pageSize))
            try file.write(contentsOf: Data([0x01]))
        }
    }
}

/// One request of the contract tests and the status the document promises for it.
struct ContractProbe: Sendable {
    /// How the request says where its body ends.
    enum Framing: Sendable {
        /// `Content-Length` of the body (none for a GET without one).
        case plain
        /// `Content-Length` of one byte over the limit on bodies, and no body sent.
        case declaredTooLarge
        /// `Content-Length` beside `Transfer-Encoding: chunked`.
        case ambiguous
    }

    let name: String
    let service: ContractService
    let method: String
    let target: String
    var headers: [(String, String)] = []
    var body = ""
    var framing = Framing.plain
    let status: Int

    /// The path, without the query.
    var path: String { String(target.prefix { $0 != "?" }) }

    /// The methods it is sent with: a GET also as HEAD.
    var methods: [String] { method == "GET" ? ["GET", "HEAD"] : [method] }

    /// Sends it with `method` on a new connection and reads the answer (the head alone for
    /// HEAD).
    func send(_ method: String, to service: LiveService) throws -> LoopbackResponse {
        let connection = try service.connect()
        switch framing {
        case .plain:
            try connection.sendRequest(method, target, headers: headers, body: Array(body.utf8))
        case .declaredTooLarge, .ambiguous:
            var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head +=
                framing == .ambiguous
                ? "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello"
                : "Content-Length: \(VerificationPolicy.maximumInputBytes + 1)\r\n\r\n"
            try connection.send(head)
        }
        return try method == "HEAD" ? connection.readResponseHead() : connection.readResponse()
    }

    /// A chain valid now, for a consumption request that is still open.
    static let currentChain: TestPKI = {
        let now = Int64(Date().timeIntervalSince1970)
        return TestChains.mint {
            $0.notBefore = now - 86_400
            $0.notAfter = now + 86_400
            $0.namePrefix = "tipledger CURRENT TEST"
        }
    }()

    /// Every probe, in the order each service is asked.
    static func all() throws -> [ContractProbe] {
        let account = ServiceHarness.account
        let bearer = OpenAPIContractTests.bearer
        let restore = "/v1/accounts/\(account)/transactions"
        let tip = try TestChains.transaction(id: "2000000000000611", price: 990)
        let other = try TestChains.transaction(id: "2000000000000612", price: 1990)
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(611), signedDate: TestChains.referenceMilliseconds + 3_600_000,
            around: tip)
        let test = try TestChains.notification(type: "TEST", uuid: TestChains.uuid(612))
        let consumption = try TestChains.notification(
            type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(613),
            signedDate: Int64(Date().timeIntervalSince1970 * 1000), around: other, pki: currentChain)
        var forged = TestJWS.signature(of: test)
        forged[7] ^= 0x01
        let forgedTest = TestJWS.replacingSignature(of: test, with: forged)
        func webhook(_ token: String) -> String { WebhookBody.wrapping(token) }

        let withToken: [ContractProbe] = [
            ContractProbe(
                name: "a new transaction", service: .withToken, method: "POST", target: "/v1/transactions", body: tip,
                status: 200),
            ContractProbe(
                name: "a wrapped transaction", service: .withToken, method: "POST", target: "/v1/transactions",
                body: #"{"signedTransaction":"\#(other)"}"#, status: 200),
            ContractProbe(
                name: "a repeated transaction", service: .withToken, method: "POST", target: "/v1/transactions",
                body: tip, status: 200),
            ContractProbe(
                name: "a transaction that is no JWS", service: .withToken, method: "POST", target: "/v1/transactions",
                body: "junk", status: 422),
            ContractProbe(
                name: "a transaction with a parameter", service: .withToken, method: "POST",
                target: "/v1/transactions?x=1", body: tip, status: 400),
            ContractProbe(
                name: "a transaction framed two ways", service: .withToken, method: "POST",
                target: "/v1/transactions", framing: .ambiguous, status: 400),
            ContractProbe(
                name: "a transaction too large", service: .withToken, method: "POST", target: "/v1/transactions",
                framing: .declaredTooLarge, status: 413),
            ContractProbe(
                name: "a TEST notification", service: .withToken, method: "POST", target: "/v1/notifications",
                body: webhook(test), status: 200),
            ContractProbe(
                name: "a REFUND", service: .withToken, method: "POST", target: "/v1/notifications",
                body: webhook(refund), status: 200),
            ContractProbe(
                name: "a CONSUMPTION_REQUEST", service: .withToken, method: "POST", target: "/v1/notifications",
                body: webhook(consumption), status: 200),
            ContractProbe(
                name: "a forged notification", service: .withToken, method: "POST", target: "/v1/notifications",
                body: webhook(forgedTest), status: 400),
            ContractProbe(
                name: "a bare notification JWS", service: .withToken, method: "POST", target: "/v1/notifications",
                body: test, status: 400),
            ContractProbe(
                name: "a notification with a parameter", service: .withToken, method: "POST",
                target: "/v1/notifications?x=1", body: webhook(test), status: 400),
            ContractProbe(
                name: "a notification too large", service: .withToken, method: "POST", target: "/v1/notifications",
                framing: .declaredTooLarge, status: 413),
            ContractProbe(
                name: "a restore of all", service: .withToken, method: "GET", target: restore + "?all=true",
                headers: bearer, status: 200),
            ContractProbe(
                name: "a restore", service: .withToken, method: "GET", target: restore + "?environment=Sandbox",
                headers: bearer, status: 200),
            ContractProbe(
                name: "a restore of no UUID", service: .withToken, method: "GET",
                target: "/v1/accounts/not-a-uuid/transactions", headers: bearer, status: 400),
            ContractProbe(
                name: "a restore of an empty account", service: .withToken, method: "GET",
                target: "/v1/accounts//transactions", headers: bearer, status: 400),
            ContractProbe(
                name: "a restore with a bad flag", service: .withToken, method: "GET", target: restore + "?all=maybe",
                headers: bearer, status: 400),
            ContractProbe(
                name: "a restore without a token", service: .withToken, method: "GET", target: restore, status: 401),
            ContractProbe(
                name: "a restore with a wrong token", service: .withToken, method: "GET", target: restore,
                headers: [("Authorization", "Bearer not-the-token-0000000000")], status: 401),
            ContractProbe(
                name: "a restore with a body too large", service: .withToken, method: "GET", target: restore,
                headers: bearer, framing: .declaredTooLarge, status: 413),
            ContractProbe(
                name: "a report by product with a commission", service: .withToken, method: "GET",
                target: "/v1/report?by=product&commission=15%25", headers: bearer, status: 200),
            ContractProbe(
                name: "a report by currency", service: .withToken, method: "GET", target: "/v1/report?by=currency",
                headers: bearer, status: 200),
            ContractProbe(
                name: "a report by day", service: .withToken, method: "GET",
                target: "/v1/report?by=day&since=2025-12-01&until=2026-12-31", headers: bearer, status: 200),
            ContractProbe(
                name: "a report by month", service: .withToken, method: "GET", target: "/v1/report?by=month",
                headers: bearer, status: 200),
            ContractProbe(
                name: "a report by storefront", service: .withToken, method: "GET",
                target: "/v1/report?by=storefront", headers: bearer, status: 200),
            ContractProbe(
                name: "a report by account", service: .withToken, method: "GET", target: "/v1/report?by=account",
                headers: bearer, status: 200),
            ContractProbe(
                name: "a report by nothing known", service: .withToken, method: "GET", target: "/v1/report?by=tip",
                headers: bearer, status: 400),
            ContractProbe(
                name: "a report without a token", service: .withToken, method: "GET", target: "/v1/report", status: 401),
            ContractProbe(
                name: "a report with a body too large", service: .withToken, method: "GET", target: "/v1/report",
                headers: bearer, framing: .declaredTooLarge, status: 413),
            ContractProbe(
                name: "a report page", service: .withToken, method: "GET",
                target: "/v1/report.html?by=product&commission=15%25", headers: bearer, status: 200),
            ContractProbe(
                name: "a report page with the token as a Basic password", service: .withToken, method: "GET",
                target: "/v1/report.html", headers: OpenAPIContractTests.basic, status: 200),
            ContractProbe(
                name: "a report page by nothing known", service: .withToken, method: "GET",
                target: "/v1/report.html?by=tip", headers: bearer, status: 400),
            ContractProbe(
                name: "a report page without a token", service: .withToken, method: "GET", target: "/v1/report.html",
                status: 401),
            ContractProbe(
                name: "a report page with a body too large", service: .withToken, method: "GET",
                target: "/v1/report.html", headers: bearer, framing: .declaredTooLarge, status: 413),
            ContractProbe(name: "health", service: .withToken, method: "GET", target: "/healthz", status: 200),
            ContractProbe(
                name: "health with a parameter", service: .withToken, method: "GET", target: "/healthz?x=1",
                status: 400),
            ContractProbe(
                name: "health with a body too large", service: .withToken, method: "GET", target: "/healthz",
                framing: .declaredTooLarge, status: 413),
            ContractProbe(name: "metrics", service: .withToken, method: "GET", target: "/metrics", status: 200),
            ContractProbe(
                name: "metrics with a parameter", service: .withToken, method: "GET", target: "/metrics?verbose=1",
                status: 400),
            ContractProbe(
                name: "metrics with a body too large", service: .withToken, method: "GET", target: "/metrics",
                framing: .declaredTooLarge, status: 413),
        ]
        let withoutToken = [
            ContractProbe(
                name: "a restore without a configured token", service: .withoutToken, method: "GET", target: restore,
                headers: bearer, status: 404),
            ContractProbe(
                name: "a report without a configured token", service: .withoutToken, method: "GET",
                target: "/v1/report", headers: bearer, status: 404),
            ContractProbe(
                name: "a report page without a configured token", service: .withoutToken, method: "GET",
                target: "/v1/report.html", headers: bearer, status: 404),
        ]
        let damaged = [
            ContractProbe(
                name: "a report of a damaged ledger", service: .damaged, method: "GET", target: "/v1/report",
                headers: bearer, status: 503),
            ContractProbe(
                name: "a report page of a damaged ledger", service: .damaged, method: "GET",
                target: "/v1/report.html", headers: bearer, status: 503),
            ContractProbe(
                name: "a restore of a damaged ledger", service: .damaged, method: "GET", target: restore,
                headers: bearer, status: 503),
            ContractProbe(
                name: "a transaction into a damaged ledger", service: .damaged, method: "POST",
                target: "/v1/transactions", body: tip, status: 503),
            ContractProbe(
                name: "a REFUND into a damaged ledger", service: .damaged, method: "POST",
                target: "/v1/notifications", body: webhook(refund), status: 503),
            ContractProbe(
                name: "health of a damaged ledger", service: .damaged, method: "GET", target: "/healthz", status: 503),
        ]
        return withToken + withoutToken + damaged
    }
}
