// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// One record of `real-public/tokens.jsonl`: a real App Store JWS published in a public file,
/// the app and environment Apple's App Store Server Library verified it for, and its verdict
/// (`real-public/README.md`).
struct PublicVector: Sendable, CustomTestStringConvertible {
    /// The record's line in `tokens.jsonl`, from 1.
    let line: Int
    /// Where the token was published, with the field of the notification it sits in. Some
    /// lines of a source hold several tokens.
    let source: String
    let token: String
    /// Which of Apple's `verifyAndDecode…` calls the verdict is from.
    let kind: PayloadKind
    /// The record's `environment`: the token's own; nil for a payload that carries none.
    let environment: AppStoreEnvironment?
    /// The environment Apple's library was built for: the token's own, else the one in `args`.
    let acceptedEnvironment: AppStoreEnvironment
    /// The record's `bundleId`, or for a renewal info (which names none) its `bundleId_context`.
    let bundleId: String
    /// The record's `appAppleId`, which only notifications carry.
    let appAppleId: Int64?
    /// Apple's `VerificationStatus` name, or nil when Apple's library accepts the token.
    let appleStatus: String?

    var testDescription: String { "tokens.jsonl:\(line) \(source)" }

    /// The record's `source` in words: repository, path and line, or the index entry it was
    /// read from, then the notification field for a nested token.
    private static func describe(_ source: [String: Any]) -> String? {
        let place: String
        if let repo = source["repo"] as? String, let path = source["path"] as? String, let line = source["line"] as? Int
        {
            place = "\(repo) \(path):\(line)"
        } else if let file = source["index_file_id"] as? String {
            place = "index file \(file)"
        } else {
            return nil
        }
        guard let within = source["nested"] as? String ?? source["field"] as? String else { return place }
        return "\(place) (\(within))"
    }

    private static func kind(_ name: String) -> PayloadKind? {
        switch name {
        case "notification": .notification
        case "transaction": .transaction
        case "renewal_info": .renewalInfo
        default: nil
        }
    }

    static func load() -> [PublicVector] {
        guard let records = try? Fixtures.jsonLines("real-public/tokens.jsonl") else { return [] }
        return records.enumerated().compactMap { index, record in
            guard let record = record as? [String: Any], let token = record["token"] as? String,
                let source = (record["source"] as? [String: Any]).flatMap(describe),
                let kind = (record["kind"] as? String).flatMap(kind),
                let apple = record["apple"] as? String,
                let args = record["args"] as? [String: Any],
                let configured = (record["environment"] as? String) ?? (args["environment"] as? String),
                let acceptedEnvironment = AppStoreEnvironment(rawValue: configured),
                let bundleId = (record["bundleId"] as? String) ?? (record["bundleId_context"] as? String)
            else { return nil }
            return PublicVector(
                line: index + 1, source: source, token: token, kind: kind,
                environment: (record["environment"] as? String).flatMap(AppStoreEnvironment.init(rawValue:)),
                acceptedEnvironment: acceptedEnvironment, bundleId: bundleId,
                appAppleId: (record["appAppleId"] as? Int).map(Int64.init), appleStatus: apple == "OK" ? nil : apple)
        }
    }

    /// Loaded once per process.
    static let all = load()

    /// A verifier set up as Apple's library was: only the built-in Apple Root CA - G3 trusted,
    /// the record's environment, bundle id and app Apple id accepted. The clock is long after
    /// most leaves expired, so a token verifies only at its own `signedDate`, as Apple's did.
    func verifier() throws -> Verifier {
        Verifier(
            trustStore: try TrustStore(roots: [TrustAnchors.appleRootCAG3]),
            policy: VerificationPolicy(
                bundleIds: [bundleId], environments: [acceptedEnvironment], appAppleId: appAppleId),
            clock: .fixed(RealVector.now))
    }

    /// A rejection whose Apple status differs from Apple's verdict for a documented reason.
    struct KnownDifference: Sendable {
        /// Apple's verdict for the record.
        let appleStatus: String
        /// tipledger's rejection of it.
        let code: VerificationError.Code
        let reason: String
    }

    /// The records whose rejection carries another Apple status than the one Apple's Python
    /// library gave, by `source` (one record each). Accept or reject still agrees for each of them.
    static let knownDifferences: [String: KnownDifference] = {
        let nullPayload = KnownDifference(
            appleStatus: "VERIFICATION_FAILURE", code: .malformedJWS,
            reason: """
                the payload is the JSON literal null, not an object: Apple's Swift library refuses it as \
                INVALID_JWT_FORMAT, as tipledger does; the Python library reports PyJWT's decode error \
                as VERIFICATION_FAILURE
                """)
        let file = "jxakellis/Hound-Server Node/controllers/createFor/createForAppStoreServerNotifications.js"
        return [
            "\(file):366 (signedRenewalInfo)": nullPayload,
            "\(file):403 (signedRenewalInfo)": nullPayload,
        ]
    }()
}
