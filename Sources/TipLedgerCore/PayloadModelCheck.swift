// SPDX-License-Identifier: GPL-3.0-or-later

/// Step 7 of docs/verification.md: the payload, now shown to be the signer's, is a known App
/// Store payload of the kind asked for, and decodes into its model.
struct PayloadModelCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        guard let kind = token.kind else {
            throw VerificationError(.invalidPayload, "the payload is not a known App Store payload")
        }
        // A notification where another kind is asked for, or the reverse, is said to be one.
        // The code stays Apple's: its library, decoding it as the kind asked for, finds no
        // bundle id (INVALID_APP_IDENTIFIER, vector notif-test-decoded-as-transaction). A kind
        // not asked for is the detected one: nothing to compare.
        if token.expected != nil, let found = PayloadKind.detect(token.payload),
            (found == .notification) != (kind == .notification)
        {
            throw VerificationError(
                .wrongBundleId, "the payload is \(found.phrase), not \(kind.phrase), so it has no bundleId for one")
        }
        let reader = PayloadReader(token.payload)
        do {
            switch kind {
            case .transaction:
                let payload = try JWSTransactionDecodedPayload(reader)
                token.claim = ClaimedIdentity(bundleId: payload.bundleId, rawEnvironment: payload.rawEnvironment)
                token.model = .transaction(payload)
            case .notification:
                let payload = try ResponseBodyV2DecodedPayload(reader)
                let (bundleId, appAppleId, rawEnvironment) = payload.claimedIdentity
                token.claim = ClaimedIdentity(
                    bundleId: bundleId, appAppleId: appAppleId, rawEnvironment: rawEnvironment,
                    carriesAppAppleId: true)
                token.model = .notification(payload)
            case .renewalInfo:
                let payload = try JWSRenewalInfoDecodedPayload(reader)
                token.claim = ClaimedIdentity(rawEnvironment: payload.rawEnvironment, checksBundle: false)
                token.model = .renewalInfo(payload)
            case .appTransaction:
                let payload = try AppTransaction(reader)
                token.claim = ClaimedIdentity(
                    bundleId: payload.bundleId, appAppleId: payload.appAppleId, rawEnvironment: payload.rawReceiptType,
                    carriesAppAppleId: true)
                token.model = .appTransaction(payload)
            }
        } catch {
            throw VerificationError(.invalidPayload, error.description)
        }
    }
}
