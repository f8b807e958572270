// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCrypto

/// Verifies App Store signed payloads: the server's `checkVerified`.
///
/// The checks run in the fixed order of SPEC section 1, each a small named step: size and form,
/// header, effective time, chain (OpenSSL `X509_verify_cert` against the configured roots at the
/// payload's own `signedDate`), Apple's marker OIDs, the ES256 signature, the payload model, the
/// app's identity, and finally every signed payload nested in a notification. The time comes from
/// the payload or the injected clock, never from the system.
///
/// Thread-safe: one verifier may serve many threads; validated chains are shared between them.
public final class Verifier: Sendable {
    /// Marker extension every App Store receipt-signing leaf carries.
    public static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// Marker extension of the Apple WWDR intermediate.
    public static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"

    public let trustStore: TrustStore
    public let policy: VerificationPolicy
    public let clock: WallClock
    /// SHA-256 over the trusted roots and the policy: equal for verifiers that give equal verdicts
    /// on a payload that carries its own time.
    public let fingerprint: [UInt8]
    let chains = ChainCache()
    let headers = HeaderCache()

    public init(trustStore: TrustStore, policy: VerificationPolicy, clock: WallClock) {
        self.trustStore = trustStore
        self.policy = policy
        self.clock = clock
        self.fingerprint = Self.fingerprint(trustStore: trustStore, policy: policy, checks: Self.checksVersion)
    }

    /// The version of the checks themselves, part of the fingerprint: a verdict stored under a
    /// fingerprint lets `verify` answer an exact repeat without checking it again
    /// (`Ledger.knownTokens`), so a change that could reject a token once accepted must raise
    /// it.
    static let checksVersion = 3

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

    private func context(usedClock: Bool) -> VerificationContext {
        VerificationContext(verifierFingerprint: fingerprint, usedClock: usedClock)
    }

    // MARK: Entry points

    /// Verifies one input line: a signed transaction, notification, renewal info or app
    /// transaction JWS, or a notification webhook body `{"signedPayload":"..."}`. The kind is
    /// detected from the payload, never declared.
    public func verify(_ input: String) -> Result<VerifiedPayload, VerificationError> {
        do {
            let text = UnverifiedJWS.trimmed(input)
            if WebhookBody.isBody(text) {
                return .success(.notification(try verifyNotification(try WebhookBody.signedPayload(of: text))))
            }
            return .success(try verifyPayload(text, as: nil))
        } catch {
            return .failure(error)
        }
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

    /// Verifies a JWS as `kind`, or as the kind its payload shows when `kind` is nil.
    public func verifyPayload(_ token: String, as expected: PayloadKind?) throws(VerificationError) -> VerifiedPayload {
        let jws = try UnverifiedJWS.parse(token, headers: headers)
        // A header whose chain was resolved before passed steps 3 and 5 but for the time.
        let resolved = jws.knownHeader?.chain
        var x5c: [String] = []
        if resolved == nil {
            try checkAlgorithm(jws.header)
            x5c = try certificateTexts(jws.header)
        }
        // Nothing the payload says is trusted before its signature is checked (step 6): a kind or
        // a date that cannot be read only chooses the time the chain is checked at, and is
        // rejected once the signature has shown the payload is the signer's.
        let detected = expected ?? PayloadKind.detect(jws.payload)
        let (effectiveDate, usedClock) = effectiveDate(of: jws.payload, kind: detected)
        let signer: Signer
        if let resolved, resolved.isValid(atSeconds: effectiveDate.wholeSeconds) {
            signer = Signer(key: resolved.leafKey, isLocalTesting: false)
        } else {
            // Outside the resolved chain's validity, the chain is validated again (see
            // `signingKey`), from the header's certificates.
            if resolved != nil { x5c = try certificateTexts(jws.header) }
            signer = try signingKey(x5c, at: effectiveDate, resolving: jws)
        }
        try checkSignature(jws, key: signer.key)
        guard let kind = detected else {
            throw VerificationError(.invalidPayload, "the payload is not a known App Store payload")
        }
        // A notification where another kind is asked for, or the reverse, is said to be one.
        // The code stays Apple's: its library, decoding it as the kind asked for, finds no
        // bundle id (INVALID_APP_IDENTIFIER, vector notif-test-decoded-as-transaction). A kind
        // not asked for is the detected one: nothing to compare.
        if expected != nil, let found = PayloadKind.detect(jws.payload),
            (found == .notification) != (kind == .notification)
        {
            throw VerificationError(
                .wrongBundleId, "the payload is \(found.phrase), not \(kind.phrase), so it has no bundleId for one")
        }
        let reader = PayloadReader(jws.payload)
        do {
            switch kind {
            case .transaction:
                return .transaction(
                    try transaction(
                        JWSTransactionDecodedPayload(reader), jws: jws, at: effectiveDate, usedClock: usedClock,
                        signer: signer))
            case .notification:
                return .notification(
                    try notification(
                        ResponseBodyV2DecodedPayload(reader), jws: jws, at: effectiveDate, usedClock: usedClock,
                        signer: signer))
            case .renewalInfo:
                let payload = try JWSRenewalInfoDecodedPayload(reader)
                let environment = try checkIdentity(
                    bundleId: nil, appAppleId: nil, rawEnvironment: payload.rawEnvironment, signer: signer,
                    checksBundle: false)
                return .renewalInfo(
                    VerifiedRenewalInfo(
                        payload: payload, jws: jws.token, environment: environment, effectiveDate: effectiveDate,
                        context: context(usedClock: usedClock)))
            case .appTransaction:
                let payload = try AppTransaction(reader)
                let environment = try checkIdentity(
                    bundleId: payload.bundleId, appAppleId: payload.appAppleId, rawEnvironment: payload.rawReceiptType,
                    signer: signer, checksBundle: true, carriesAppAppleId: true)
                return .appTransaction(
                    VerifiedAppTransaction(
                        payload: payload, jws: jws.token, environment: environment, effectiveDate: effectiveDate,
                        context: context(usedClock: usedClock)))
            }
        } catch let error as PayloadError {
            throw VerificationError(.invalidPayload, error.description)
        } catch let error as VerificationError {
            throw error
        } catch {
            throw VerificationError(.invalidPayload, "\(error)")
        }
    }

    /// SHA-256 of the token a line carries, as `UnverifiedJWS.tokenDigest(ofLine:)` gives it;
    /// the header of a token already verified is not hashed again.
    public func tokenDigest(ofLine line: String) -> [UInt8]? {
        UnverifiedJWS.tokenDigest(ofLine: line, headers: headers)
    }

    // MARK: Step 3: header

    private func checkAlgorithm(_ header: JSONObject) throws(VerificationError) {
        guard case .string("ES256")? = header.value(named: "alg") else {
            let found = header.value(named: "alg")?.stringValue.map { "\"\($0.prefix(20))\"" } ?? "no alg"
            throw VerificationError(.unsupportedAlgorithm, "alg must be ES256, found \(found)")
        }
        guard header.value(named: "crit") == nil else {
            throw VerificationError(
                .unsupportedAlgorithm, "the header has crit, and no critical extension is understood")
        }
    }

    private func certificateTexts(_ header: JSONObject) throws(VerificationError) -> [String] {
        guard case .array(let entries)? = header.value(named: "x5c") else {
            throw VerificationError(.invalidChainLength, "the header has no x5c certificate chain")
        }
        let allowed = policy.acceptsLocalTesting ? "1 (Xcode) or 3" : "3"
        guard entries.count == 3 || (entries.count == 1 && policy.acceptsLocalTesting) else {
            let count = entries.count == 1 ? "1 certificate" : "\(entries.count) certificates"
            // One self-signed certificate is how Xcode's StoreKit testing signs.
            let xcode = entries.count == 1 ? "; Xcode signs with one, accepted with the Xcode environment" : ""
            throw VerificationError(.invalidChainLength, "x5c has \(count), expected \(allowed)\(xcode)")
        }
        var texts: [String] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let text) = entry else {
                throw VerificationError(.invalidCertificate, "x5c[\(index)] is \(entry.typeName), not a string")
            }
            let limit = VerificationPolicy.maximumCertificateBytes
            guard text.utf8.count <= limit else {
                throw VerificationError(
                    .invalidCertificate,
                    "x5c[\(index)] is \(text.utf8.count) bytes; an x5c certificate is at most \(limit)")
            }
            texts.append(text)
        }
        return texts
    }

    // MARK: Step 4: effective time

    /// The payload's own time (`receiptCreationDate` of an app transaction, else `signedDate`),
    /// or the clock's (then `usedClock` is true). A date that is not a number is the clock's
    /// too: the payload model rejects it after the signature check.
    private func effectiveDate(of payload: JSONObject, kind: PayloadKind?) -> (AppleDate, usedClock: Bool) {
        let field: StaticString = kind == .appTransaction ? "receiptCreationDate" : "signedDate"
        if let date = try? PayloadReader(payload).date(field) { return (date, false) }
        return (clock.now(), true)
    }

    // MARK: Step 5: chain

    /// The key that must have signed the payload, and whether it is a local testing certificate.
    struct Signer {
        let key: PublicKey
        let isLocalTesting: Bool
    }

    /// The key of the chain `x5c` names, validated at `date`; a three-certificate chain is
    /// remembered for `jws`'s header, so later tokens with it only check the time.
    ///
    /// A cached chain answers only for times inside its validity, which is that of the root
    /// OpenSSL anchored it at when it was cached. Outside it, another trusted root (one name and
    /// key, reissued with another validity) may still anchor the chain, so it is validated again,
    /// as a verifier without the cache would; the cached entry stays as it is.
    private func signingKey(_ x5c: [String], at date: AppleDate, resolving jws: UnverifiedJWS) throws(VerificationError)
        -> Signer
    {
        let seconds = date.wholeSeconds
        if x5c.count == 1 {
            return try localTestingKey(x5c[0], at: seconds)
        }
        let key = ChainCache.Key(leaf: x5c[0], intermediate: x5c[1])
        let cached = chains.entry(for: key)
        if let entry = cached {
            if !entry.thirdCertificates.contains(x5c[2]) {
                _ = try certificate(x5c[2], index: 2)
                chains.noteThirdCertificate(x5c[2], for: key)
            }
            remember(entry, for: jws)
            if entry.isValid(atSeconds: seconds) { return Signer(key: entry.leafKey, isLocalTesting: false) }
        }
        let leaf = try certificate(x5c[0], index: 0)
        let intermediate = try certificate(x5c[1], index: 1)
        _ = try certificate(x5c[2], index: 2)
        let chain: ValidatedChain
        switch trustStore.validate(leaf: leaf, intermediate: intermediate, atSeconds: seconds) {
        case .success(let validated): chain = validated
        case .failure(.notValidAtTime(let reason)):
            throw VerificationError(.certificateNotValidAtSignedDate, "\(reason) at \(date)")
        case .failure(.untrusted(let reason)):
            throw VerificationError(.untrustedChain, reason)
        }
        let leafKey = try checkRoles(chain)
        if cached == nil {
            let entry = ChainCache.Entry(chain: chain, leafKey: leafKey, thirdCertificate: x5c[2])
            chains.store(entry, for: key)
            remember(entry, for: jws)
        }
        return Signer(key: leafKey, isLocalTesting: false)
    }

    /// Notes in the header cache that `jws`'s header names the validated `chain`.
    private func remember(_ chain: ChainCache.Entry, for jws: UnverifiedJWS) {
        guard let known = jws.knownHeader, known.chain == nil else { return }
        jws.withHeaderSegment { headers.resolve(known, for: $0, chain: chain) }
    }

    /// CA and leaf roles, Apple's marker OIDs and the leaf's curve; returns the leaf's key.
    private func checkRoles(_ chain: ValidatedChain) throws(VerificationError) -> PublicKey {
        guard chain.intermediate.hasCABasicConstraint else {
            throw VerificationError(.untrustedChain, "the intermediate certificate is not a CA")
        }
        guard !chain.leaf.mayActAsCA else {
            throw VerificationError(.untrustedChain, "the leaf certificate is a CA")
        }
        guard chain.leaf.hasExtension(oid: Verifier.leafMarkerOID) else {
            throw VerificationError(.missingAppleOID, "the leaf certificate lacks \(Verifier.leafMarkerOID)")
        }
        guard chain.intermediate.hasExtension(oid: Verifier.intermediateMarkerOID) else {
            throw VerificationError(
                .missingAppleOID, "the intermediate certificate lacks \(Verifier.intermediateMarkerOID)")
        }
        return try p256Key(of: chain.leaf)
    }

    /// Xcode's StoreKit testing signs with one self-signed certificate; it is trusted only when
    /// the user put exactly that certificate in the trust store and accepts the Xcode environment.
    private func localTestingKey(_ text: String, at seconds: Int64) throws(VerificationError) -> Signer {
        let certificate = try certificate(text, index: 0)
        guard trustStore.containsExactly(certificate) else {
            throw VerificationError(
                .untrustedChain, "the single x5c certificate (Xcode StoreKit testing) is not in the trust store")
        }
        guard certificate.isValid(atSeconds: seconds) else {
            throw VerificationError(
                .certificateNotValidAtSignedDate,
                "the Xcode certificate is not valid at \(AppleDate(wholeMilliseconds: seconds * 1000))")
        }
        return Signer(key: try p256Key(of: certificate), isLocalTesting: true)
    }

    private func certificate(_ text: String, index: Int) throws(VerificationError) -> Certificate {
        guard let der = Base64.decode(text, alphabet: .standard) else {
            throw VerificationError(.invalidCertificate, "x5c[\(index)] is not standard base64")
        }
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw VerificationError(.invalidCertificate, "x5c[\(index)] is not a DER certificate: \(error.reason)")
        }
    }

    private func p256Key(of certificate: Certificate) throws(VerificationError) -> PublicKey {
        guard let key = try? certificate.publicKey(), key.isP256 else {
            throw VerificationError(.untrustedChain, "the signing certificate's key is not EC P-256")
        }
        return key
    }

    // MARK: Step 6: signature

    private func checkSignature(_ jws: UnverifiedJWS, key: PublicKey) throws(VerificationError) {
        guard jws.signature.count == ES256Signature.rawByteCount else {
            throw VerificationError(
                .badSignature, "the signature is \(jws.signature.count) bytes; ES256 requires 64 (raw R‖S)")
        }
        let digest = jws.signingInputDigest()
        let valid = jws.signature.withUnsafeBytes { key.isValidES256Signature($0, digest: digest) }
        guard valid else {
            throw VerificationError(.badSignature, "the signature does not match the signed content")
        }
    }

    // MARK: Steps 7–9: payload, identity, nested payloads

    private func transaction(
        _ payload: JWSTransactionDecodedPayload, jws: UnverifiedJWS, at date: AppleDate, usedClock: Bool,
        signer: Signer
    ) throws(VerificationError) -> VerifiedTransaction {
        let environment = try checkIdentity(
            bundleId: payload.bundleId, appAppleId: nil, rawEnvironment: payload.rawEnvironment, signer: signer,
            checksBundle: true)
        return VerifiedTransaction(
            payload: payload, jws: jws.token, environment: environment, effectiveDate: date,
            context: context(usedClock: usedClock))
    }

    private func notification(
        _ payload: ResponseBodyV2DecodedPayload, jws: UnverifiedJWS, at date: AppleDate, usedClock: Bool,
        signer: Signer
    ) throws(VerificationError) -> VerifiedNotification {
        let claimed = payload.claimedIdentity
        let environment = try checkIdentity(
            bundleId: claimed.bundleId, appAppleId: claimed.appAppleId, rawEnvironment: claimed.rawEnvironment,
            signer: signer, checksBundle: true, carriesAppAppleId: true)
        guard let uuid = payload.notificationUUID, let type = payload.rawNotificationType else {
            throw VerificationError(.invalidPayload, "the notification has no notificationUUID or notificationType")
        }
        let transaction = try nested(
            payload.data?.signedTransactionInfo, "data.signedTransactionInfo", as: .transaction, environment,
            claimed.bundleId)?.transaction
        let renewalInfo = try nested(
            payload.data?.signedRenewalInfo, "data.signedRenewalInfo", as: .renewalInfo, environment,
            claimed.bundleId)?.renewalInfo
        let appTransaction = try nested(
            payload.appData?.signedAppTransactionInfo, "appData.signedAppTransactionInfo", as: .appTransaction,
            environment, claimed.bundleId)?.appTransaction
        let nestedUsedClock = [transaction?.context, renewalInfo?.context, appTransaction?.context]
            .contains { $0?.usedClock == true }
        return VerifiedNotification(
            payload: payload, jws: jws.token, environment: environment, effectiveDate: date,
            context: context(usedClock: usedClock || nestedUsedClock), notificationUUID: uuid,
            rawNotificationType: type, transaction: transaction, renewalInfo: renewalInfo,
            appTransaction: appTransaction)
    }

    /// Verifies a signed payload nested in a notification (steps 1–8 again); it must be for the
    /// same app and environment as the notification around it.
    private func nested(
        _ token: String?, _ field: String, as kind: PayloadKind, _ environment: AppStoreEnvironment,
        _ bundleId: String?
    ) throws(VerificationError) -> VerifiedPayload? {
        guard let token else { return nil }
        let verified: VerifiedPayload
        do {
            verified = try verifyPayload(token, as: kind)
        } catch {
            throw error.within(field)
        }
        if let nestedBundleId = verified.bundleId, nestedBundleId != bundleId {
            throw VerificationError(
                .wrongBundleId,
                "\(field): bundleId \(nestedBundleId) differs from the notification's \(bundleId ?? "none")")
        }
        if verified.environment != environment {
            throw VerificationError(
                .wrongEnvironment,
                "\(field): environment \(verified.environment.rawValue) differs from the notification's \(environment.rawValue)"
            )
        }
        return verified
    }

    /// Step 8, in the order Apple's library uses: bundle id, app Apple id, environment.
    ///
    /// `checksBundle` is false for renewal infos, which carry no bundle id; `carriesAppAppleId`
    /// is true for the payloads Apple puts the app's Apple id in (notifications, app transactions).
    private func checkIdentity(
        bundleId: String?, appAppleId: Int64?, rawEnvironment: String?, signer: Signer, checksBundle: Bool,
        carriesAppAppleId: Bool = false
    ) throws(VerificationError) -> AppStoreEnvironment {
        if checksBundle {
            guard let bundleId else {
                throw VerificationError(.wrongBundleId, "the payload has no bundleId")
            }
            guard policy.bundleIds.contains(bundleId) else {
                throw VerificationError(.wrongBundleId, "bundleId \(bundleId) is not a configured bundle id")
            }
        }
        // Apple's libraries check the app Apple id only when they verify for Production (Apple
        // leaves it out elsewhere), before the environment. So it is checked when Production is
        // accepted, except for a payload of another accepted environment, which a verifier for
        // that environment would take.
        let production = AppStoreEnvironment.production.rawValue
        if let expected = policy.appAppleId, policy.environments.contains(.production),
            rawEnvironment == production || !policy.accepts(rawEnvironment: rawEnvironment)
        {
            if let appAppleId, appAppleId != expected {
                throw VerificationError(.wrongAppAppleId, "appAppleId \(appAppleId) is not the configured \(expected)")
            }
            if carriesAppAppleId && appAppleId == nil && rawEnvironment == production {
                throw VerificationError(.wrongAppAppleId, "a Production payload must carry appAppleId")
            }
        }
        guard let rawEnvironment else {
            throw VerificationError(.wrongEnvironment, "the payload has no environment claim")
        }
        guard policy.accepts(rawEnvironment: rawEnvironment),
            let environment = AppStoreEnvironment(rawValue: rawEnvironment)
        else {
            throw VerificationError.environmentNotAccepted(rawEnvironment)
        }
        if signer.isLocalTesting && !environment.isLocalTesting {
            throw VerificationError(
                .wrongEnvironment, "signed by an Xcode testing certificate but claims \(environment.rawValue)")
        }
        // LocalTesting is Apple's other name for Xcode's: one environment, so the ledger keys,
        // answers and totals name it one way (the evidence keeps the payload's own word).
        return environment.isLocalTesting ? .xcode : environment
    }
}
