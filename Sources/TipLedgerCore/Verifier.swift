// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCrypto

/// Verifies App Store signed payloads: the server's `checkVerified`.
///
/// A token is read once (`parse(line:)`: framed, its header decoded, hashed), then put through
/// `checks`, small named steps in the fixed order of docs/verification.md: form, effective
/// time, header and chain (OpenSSL `X509_verify_cert` against the configured roots at the
/// payload's own `signedDate`, with Apple's marker OIDs) behind the caches that skip them for a
/// header or chain seen before, the ES256 signature, the payload model, the app's identity, and
/// finally every signed payload nested in a notification. The time comes from the payload or
/// the injected clock, never from the system.
///
/// Thread-safe: one verifier may serve many threads; decoded headers and validated chains are
/// shared between them.
public final class Verifier: Sendable {
    public let trustStore: TrustStore
    public let policy: VerificationPolicy
    public let clock: WallClock
    /// Revocation checks online, when on (`RevocationCheck`); nil checks offline only.
    public let onlineChecks: OnlineChecks?
    /// SHA-256 over the trusted roots and the policy: equal for verifiers that give equal verdicts
    /// on a payload that carries its own time.
    public let fingerprint: [UInt8]
    let chains = ChainCache()
    let headers = HeaderCache()

    public init(trustStore: TrustStore, policy: VerificationPolicy, clock: WallClock, onlineChecks: OnlineChecks? = nil)
    {
        self.trustStore = trustStore
        self.policy = policy
        self.clock = clock
        self.onlineChecks = onlineChecks
        self.fingerprint = Self.fingerprint(trustStore: trustStore, policy: policy, checks: Self.checksVersion)
    }

    /// The version of the checks themselves, part of the fingerprint: a verdict stored under a
    /// fingerprint lets `verify` answer an exact repeat without checking it again
    /// (`Ledger.knownTokens`), so a change that could reject a token once accepted must raise
    /// it.
    static let checksVersion = 4

    /// The fingerprint of a verifier with these roots and policy running version `checks` of
    /// the checks.
    static func fingerprint(trustStore: TrustStore, policy: VerificationPolicy, checks: Int) -> [UInt8] {
        let roots: [String] = trustStore.roots.map { hex($0.sha256Fingerprint) }.sorted()
        let environments: [String] = policy.environments.map(\.rawValue).sorted()
        var description = "tipledger-verifier-\(checks)\nroots=" + roots.joined(separator: ",")
        description += "\nbundles=" + policy.bundleIds.sorted().joined(separator: ",")
        description += "\nenvironments=" + environments.joined(separator: ",")
        description += "\nappAppleId=" + (policy.appAppleId.map { String($0) } ?? "-")
        return SHA256.hash(description.utf8)
    }

    /// The steps every token goes through, in order; the first rejection ends the run.
    static let checks: [any VerificationCheck] = [
        FormCheck(), EffectiveTimeCheck(), CachedChainChecks(), SignatureCheck(), RevocationCheck(),
        PayloadModelCheck(),
        IdentityCheck(), NotificationCheck(),
    ]

    // MARK: Entry points

    /// Reads one input line: a signed transaction, notification, renewal info or app
    /// transaction JWS, or a notification webhook body `{"signedPayload":"..."}`, framed and
    /// hashed once for every later step (see `UnverifiedJWS`).
    public func parse(line: String) throws(VerificationError) -> UnverifiedJWS {
        try UnverifiedJWS.parse(line: line, headers: headers)
    }

    /// Verifies a line read with `parse(line:)`. The kind is detected from the payload, never
    /// declared; a webhook body carries a notification.
    public func verify(_ jws: UnverifiedJWS) -> Result<VerifiedPayload, VerificationError> {
        Result { () throws(VerificationError) in try check(jws, as: jws.isWebhookBody ? .notification : nil) }
    }

    /// Reads and verifies one input line (`parse(line:)`, then `verify(_:)`).
    public func verify(_ line: String) -> Result<VerifiedPayload, VerificationError> {
        Result { () throws(VerificationError) in try parse(line: line) }.flatMap(verify)
    }

    /// Verifies a signed transaction (`signedTransactionInfo`).
    public func verifyTransaction(_ token: String) throws(VerificationError) -> VerifiedTransaction {
        guard case .transaction(let verified) = try verifyPayload(token, as: .transaction) else {
            preconditionFailure("verifyPayload returned another kind than asked for")
        }
        return verified
    }

    /// Verifies a signed notification (`signedPayload`) and every signed payload inside it.
    public func verifyNotification(_ token: String) throws(VerificationError) -> VerifiedNotification {
        guard case .notification(let verified) = try verifyPayload(token, as: .notification) else {
            preconditionFailure("verifyPayload returned another kind than asked for")
        }
        return verified
    }

    /// Verifies a bare JWS as `kind`, or as the kind its payload shows when `kind` is nil.
    public func verifyPayload(_ token: String, as expected: PayloadKind?) throws(VerificationError) -> VerifiedPayload {
        try check(UnverifiedJWS.parse(token: token, headers: headers), as: expected)
    }

    /// Runs `checks` over `jws`, then puts together what they found.
    private func check(_ jws: UnverifiedJWS, as expected: PayloadKind?) throws(VerificationError) -> VerifiedPayload {
        var token = TokenUnderCheck(jws, as: expected)
        for check in Self.checks { try check.check(&token, by: self) }
        guard let model = token.model.take(), let environment = token.environment else {
            preconditionFailure("the checks ended without a model or an environment")
        }
        let evidence = jws.evidence
        let date = token.effectiveDate
        func verified<Payload>(_ payload: Payload) -> Verified<Payload> {
            Verified(
                payload: payload, evidence: evidence, environment: environment, effectiveDate: date,
                context: context(usedClock: token.usedClock))
        }
        switch model {
        case .transaction(let payload): return .transaction(verified(payload))
        case .renewalInfo(let payload): return .renewalInfo(verified(payload))
        case .appTransaction(let payload): return .appTransaction(verified(payload))
        case .notification(let payload):
            guard let content = token.notification else {
                preconditionFailure("a notification ended the checks without its content")
            }
            let nestedUsedClock = [
                content.transaction?.context, content.renewalInfo?.context, content.appTransaction?.context,
            ]
            .contains { $0?.usedClock == true }
            return .notification(
                VerifiedNotification(
                    payload: payload, evidence: evidence, environment: environment, effectiveDate: date,
                    context: context(usedClock: token.usedClock || nestedUsedClock), notificationUUID: content.uuid,
                    rawNotificationType: content.rawType, transaction: content.transaction,
                    renewalInfo: content.renewalInfo, appTransaction: content.appTransaction))
        }
    }

    private func context(usedClock: Bool) -> VerificationContext {
        VerificationContext(verifierFingerprint: fingerprint, usedClock: usedClock)
    }
}
