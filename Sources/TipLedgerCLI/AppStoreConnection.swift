// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore

/// The App Store Server API as the commands reach it: a client for each environment they call
/// (Production first), all signing with the same credentials.
struct AppStoreConnection: Sendable {
    let clients: [(environment: AppStoreEnvironment, client: AppStoreServerAPIClient)]

    init(clients: [(AppStoreEnvironment, AppStoreServerAPIClient)]) {
        self.clients = clients.map { (environment: $0.0, client: $0.1) }
    }

    var environments: [AppStoreEnvironment] { clients.map(\.environment) }

    /// The client for `environment`, or nil when the commands do not call it.
    func client(_ environment: AppStoreEnvironment) -> AppStoreServerAPIClient? {
        clients.first { $0.environment == environment }?.client
    }

    /// Calls `body` with each environment's client in turn until one finds what it asks for:
    /// Apple's 404 (no such transaction or order there) moves on to the next. Returns the
    /// environment and the answer.
    ///
    /// - Throws: when every environment answered 404, a rejection (exit 1) saying Apple knows no
    ///   `what` there, with Apple's error by name.
    func firstFinding<Answer>(_ what: String, hint: String, _ body: (AppStoreServerAPIClient) throws -> Answer) throws
        -> (AppStoreEnvironment, Answer)
    {
        var notFound: AppStoreAPIError? = nil
        for (environment, client) in clients {
            do {
                return (environment, try body(client))
            } catch let error as AppStoreAPIError where error.isNotFound {
                notFound = error
            }
        }
        let apple = notFound?.apple.map { " (\($0))" } ?? ""
        throw CLIError(.rejected, "Apple knows no \(what) in \(environmentNames)\(apple)", hint: hint)
    }

    /// "Production", "Production or Sandbox": for messages.
    var environmentNames: String { environments.map(\.rawValue).joined(separator: " or ") }
}

extension AppStoreConnection {
    /// An observer that tells the operator, on standard error, of each exchange that makes a
    /// call wait or try again: Apple's rate limit (429, with the time Apple takes the next
    /// request), a server error, a timeout or a broken connection.
    static func notes(on terminal: Terminal) -> @Sendable (APIExchange) -> Void {
        { exchange in
            if let status = exchange.status {
                guard status == 429 || status >= 500 else { return }
                var text = "note: \(exchange.endpointName): Apple answered \(status)"
                if status == 429 {
                    text += " (its rate limit)"
                    if let retryAt = exchange.retryAt { text += "; it takes the next request at \(retryAt)" }
                }
                terminal.errorLine(text)
            } else if let failure = exchange.failure, [.timedOut, .connectionFailed].contains(failure) {
                terminal.errorLine(
                    "note: \(exchange.endpointName): \(String(failure.rawValue.map { $0 == "_" ? " " : $0 }))")
            }
        }
    }
}
