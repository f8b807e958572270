// SPDX-License-Identifier: GPL-3.0-or-later

/// Step 4 of docs/verification.md: the time the chain is checked at, the payload's own
/// (`receiptCreationDate` of an app transaction, else `signedDate`), or the clock's when it has
/// none or when online checks are on (a responder tells the status now, so the chain is
/// checked now, as Apple's library does when it checks online). It rejects nothing: nothing the payload says is trusted before its signature is
/// checked, so a kind or a date that cannot be read only chooses the time here, and the payload
/// is rejected once the signature has shown it is the signer's (`PayloadModelCheck`).
struct EffectiveTimeCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) {
        token.kind = token.expected ?? PayloadKind.detect(token.payload)
        let field: StaticString = token.kind == .appTransaction ? "receiptCreationDate" : "signedDate"
        if verifier.onlineChecks == nil, let date = try? PayloadReader(token.payload).date(field) {
            token.effectiveDate = date
        } else {
            token.effectiveDate = verifier.clock.now()
            token.usedClock = true
        }
    }
}
