// SPDX-License-Identifier: GPL-3.0-or-later

/// Which apps and environments a verifier accepts.
public struct VerificationPolicy: Sendable {
    /// Largest accepted token, in bytes after trimming surrounding whitespace. Real ones are ~4 KB
    /// (notifications with a nested transaction ~18 KB).
    public static let maximumTokenBytes = 64 * 1024

    /// Largest input that may carry a token, in bytes: a line of `verify` with its line ending,
    /// or an HTTP request body. The largest token fits with 1 KiB to spare for what may come
    /// around it: whitespace, a line ending, and a webhook body's or a transaction submission's
    /// JSON (`{"signedPayload":"..."}`, `{"signedTransaction":"..."}`), not a second token.
    public static let maximumInputBytes = maximumTokenBytes + 1024

    /// Accepted `bundleId`s, compared exactly (case-sensitive).
    public var bundleIds: Set<String>
    /// Accepted environments. `LocalTesting` is accepted exactly when `Xcode` is.
    public var environments: Set<AppStoreEnvironment>
    /// The app's Apple id; when set, Production notifications and app transactions must carry
    /// it. Payloads of the other accepted environments are not held to it, as Apple's libraries
    /// check it only when they verify for Production.
    public var appAppleId: Int64?

    public init(bundleIds: Set<String>, environments: Set<AppStoreEnvironment>, appAppleId: Int64? = nil) {
        self.bundleIds = bundleIds
        self.environments = environments
        self.appAppleId = appAppleId
    }

    /// Whether payloads signed by Xcode's local StoreKit testing certificate may be accepted.
    var acceptsLocalTesting: Bool { environments.contains { $0.isLocalTesting } }

    /// Whether a payload claiming `rawEnvironment` is accepted.
    func accepts(rawEnvironment: String?) -> Bool {
        guard let rawEnvironment, let environment = AppStoreEnvironment(rawValue: rawEnvironment) else {
            return false
        }
        return environment.isLocalTesting ? acceptsLocalTesting : environments.contains(environment)
    }
}
