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
            case .transaction: token.model = .transaction(try JWSTransactionDecodedPayload(reader))
            case .notification: token.model = .notification(try ResponseBodyV2DecodedPayload(reader))
            case .renewalInfo: token.model = .renewalInfo(try JWSRenewalInfoDecodedPayload(reader))
            case .appTransaction: token.model = .appTransaction(try AppTransaction(reader))
            }
        } catch {
            throw VerificationError(.invalidPayload, error.description)
        }
    }
}
