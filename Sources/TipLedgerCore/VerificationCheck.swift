// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCrypto

/// One step of verification (docs/verification.md): it reads what the steps before it found in
/// `token`, adds what it finds, or throws the token's rejection. `Verifier.checks` runs them in
/// a fixed order, the first rejection ending the run, as swift-certificates runs its
/// `VerifierPolicy` list.
protocol VerificationCheck: Sendable {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError)
}

/// A token partway through the checks: what the checks so far found, for the ones after them.
/// Each property says which check sets it; a later check may rely on it.
struct TokenUnderCheck {
    let jws: UnverifiedJWS
    /// The kind asked for; nil when the payload's own fields decide.
    let expected: PayloadKind?
    /// `FormCheck`.
    var payload: JSONObject = [:]
    var signature: [UInt8] = []
    /// `EffectiveTimeCheck`: the kind asked for, else the kind the payload shows (nil when it
    /// shows none; `PayloadModelCheck` rejects it after the signature is checked), and the
    /// time the chain is checked at.
    var kind: PayloadKind?
    var effectiveDate = AppleDate(wholeMilliseconds: 0)
    /// Whether `effectiveDate` is the clock's, the payload having none.
    var usedClock = false
    /// `HeaderCheck`: the header's `x5c` entries, as received.
    var certificates: [String] = []
    /// `ChainCheck`, or the cache layer around it (`CachedChainChecks`).
    var signer: Signer?
    /// `ChainCheck`: a three-certificate chain it validated, for the cache layer to keep.
    var validatedChain: ChainCache.Entry?
    /// `CachedChainChecks`: the three-certificate chain, validated now or found validated before.
    var chain: ValidatedChain?
    /// `PayloadModelCheck`: the model, and the identity it claims, read once for `IdentityCheck`.
    var model: PayloadModel?
    var claim: ClaimedIdentity?
    /// `IdentityCheck`: the environment the payload was verified for.
    var environment: AppStoreEnvironment?
    /// `NotificationCheck`: the notification's own fields, and its signed payloads, verified.
    var notification: NotificationContent?

    init(_ jws: UnverifiedJWS, as expected: PayloadKind?) {
        self.jws = jws
        self.expected = expected
    }
}

/// The key that must have signed a payload, and whether it is an Xcode testing certificate's.
struct Signer {
    let key: PublicKey
    let isLocalTesting: Bool
}

/// A payload decoded into the model of its kind.
enum PayloadModel {
    case transaction(JWSTransactionDecodedPayload)
    case notification(ResponseBodyV2DecodedPayload)
    case renewalInfo(JWSRenewalInfoDecodedPayload)
    case appTransaction(AppTransaction)
}

/// The identity a payload claims, and which of its parts Apple's model has for its kind:
/// renewal infos carry no bundle id; notifications and app transactions carry the app's Apple id.
struct ClaimedIdentity {
    var bundleId: String?
    var appAppleId: Int64?
    var rawEnvironment: String?
    var checksBundle = true
    var carriesAppAppleId = false
}

/// What a notification carries besides its identity: its id and type, and every signed payload
/// nested in it, verified.
struct NotificationContent {
    let uuid: String
    let rawType: String
    let transaction: VerifiedTransaction?
    let renewalInfo: VerifiedRenewalInfo?
    let appTransaction: VerifiedAppTransaction?
}
