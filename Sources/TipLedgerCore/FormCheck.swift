// SPDX-License-Identifier: GPL-3.0-or-later

/// The rest of steps 1–2 of docs/verification.md, after `UnverifiedJWS` framed the token and
/// decoded its header: a payload that is a JSON object and a base64url signature.
struct FormCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        (token.payload, token.signature) = try token.jws.body()
    }
}
