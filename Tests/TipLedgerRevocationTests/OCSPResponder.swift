// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerAPITestSupport
import TipLedgerCrypto
import TipLedgerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real OCSP responder, `openssl ocsp -index ... -port`, started (with `ChildProcess`) on a
/// given port for one issuer; stopped when released.
///
/// Ready once it says `ACCEPT` on standard output (read, not waited for); every request it takes
/// it logs on standard error ("Received request"), which `requestCount` counts.
final class OCSPResponder {
    /// A certificate the responder answers for: its serial number, and whether it is revoked.
    struct Entry {
        let serialNumber: UInt64
        let revoked: Bool
    }

    let port: UInt16
    private let child: ChildProcess
    /// The responder's standard output, held open so it never writes to a closed pipe.
    private let output: FileHandle
    private let log: String

    /// Starts a responder for certificates `issuer` signed, answering as `index` says, its
    /// responses signed by `signer`, each valid for `minutes` (its `nextUpdate`).
    init(
        port: UInt16, issuer: Certificate, signer: (certificate: Certificate, key: PrivateKey), index: [Entry],
        minutes: Int, directory: String, name: String
    ) throws {
        self.port = port
        let file = { (suffix: String) in "\(directory)/\(name)-\(suffix)" }
        try issuer.pemEncoded.write(toFile: file("ca.pem"), atomically: true, encoding: .utf8)
        try signer.certificate.pemEncoded.write(toFile: file("signer.pem"), atomically: true, encoding: .utf8)
        try signer.key.pemEncoded.write(toFile: file("signer.key"), atomically: true, encoding: .utf8)
        // index.txt of `openssl ca`: status, expiry, revocation time, serial (hex), file, name.
        let lines = index.map { entry in
            let serial = String(format: "%02X", entry.serialNumber)
            return [
                entry.revoked ? "R" : "V", "491231235959Z", entry.revoked ? "260101000000Z" : "", serial, "unknown",
                "/CN=serial \(serial)",
            ].joined(separator: "\t")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file("index.txt"), atomically: true, encoding: .utf8)
        log = file("requests.log")
        guard FileManager.default.createFile(atPath: log, contents: nil) else {
            throw ResponderFailed(log: "cannot create \(log)")
        }

        let arguments = [
            "ocsp", "-index", file("index.txt"), "-port", String(port), "-rsigner", file("signer.pem"), "-rkey",
            file("signer.key"), "-CA", file("ca.pem"), "-nmin", String(minutes),
        ]
        var outputEnds: [Int32] = [-1, -1]
        guard pipe(&outputEnds) == 0 else { throw ResponderFailed(log: "no pipe") }
        _ = fcntl(outputEnds[0], F_SETFD, FD_CLOEXEC)
        let output = FileHandle(fileDescriptor: outputEnds[0], closeOnDealloc: true)
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let errors = open(log, O_WRONLY | O_APPEND | O_CLOEXEC)
        // Closed once the child has its copies: with the write end still open here, a responder
        // that exits before listening would leave the read below waiting for ever.
        defer { for descriptor in [input, errors] { close(descriptor) } }
        do {
            defer { close(outputEnds[1]) }
            child = try ChildProcess(
                executable: "/usr/bin/openssl", arguments: arguments, environment: [:], standardInput: input,
                standardOutput: outputEnds[1], standardError: errors)
        }
        // The responder prints "ACCEPT [::]:PORT PID=..." once it listens; end of file first means
        // it did not start (the port taken, a bad file).
        var said = ""
        while !said.contains("ACCEPT") || !said.contains("\n") {
            let data = output.availableData
            guard !data.isEmpty else {
                _ = child.waitForExit()
                throw ResponderFailed(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            }
            said += String(decoding: data, as: UTF8.self)
        }
        self.output = output
    }

    deinit {
        // SIGKILL, not SIGTERM: a child inherits the blocked signals of the thread that spawned
        // it, and the test runner's threads may block SIGTERM (as `serve` does in-process).
        child.send(SIGKILL)
        _ = child.waitForExit()
    }

    /// The URL to name in a certificate's Authority Information Access.
    var url: String { "http://127.0.0.1:\(port)/" }

    /// The requests the responder received so far: each is logged before it is answered, so a
    /// request whose answer arrived is counted.
    var requestCount: Int {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "Received request").count - 1
    }

    /// A loopback port nothing listens on now, for a responder to take: the port of a socket
    /// bound and closed again.
    static func freePort() throws -> UInt16 {
        try RefusingPort().port
    }
}

/// The responder exited before it listened.
struct ResponderFailed: Error {
    let log: String
}
