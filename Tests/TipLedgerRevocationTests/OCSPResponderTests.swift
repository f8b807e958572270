// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// The test responder itself: a responder that cannot listen fails to start, so that a chain
/// can be made again on other ports, rather than waiting for ever for it to say it listens.
@Suite struct OCSPResponderTests {
    @Test func aResponderWhosePortIsTakenFailsToStart() throws {
        let taken = try HeldResponder()
        let pki = TestChains.mint { _ in }
        let directory = try TemporaryDirectory()

        #expect(throws: ResponderFailed.self) {
            try OCSPResponder(
                port: taken.port, issuer: pki.root, signer: (pki.root, pki.rootKey),
                index: [.init(serialNumber: 2, revoked: false)], minutes: 60, directory: directory.path, name: "root")
        }
    }
}
