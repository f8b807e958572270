// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
internal import TipLedgerCore
internal import TipLedgerCrypto

#if canImport(Glibc)
    internal import Glibc
#endif

/// The files `testkit init` writes, and reading them back for signing.
enum TestkitKeys {
    static let names = ["root", "intermediate", "leaf"]

    /// The names of the files `write` creates in its directory.
    static let files = names.flatMap { ["\($0).cer", "\($0).pem", "\($0).key"] }

    /// Writes `pki` to `directory`: `NAME.cer` (DER), `NAME.pem` and `NAME.key` (PKCS#8 PEM,
    /// mode 0600) for root, intermediate and leaf.
    static func write(_ pki: TestPKI, to directory: String) throws {
        do {
            // Readable by all, as directories usually are (the process's umask is 077, for the
            // ledger's sake): the keys in it are private by their own mode, the certificates not.
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            // FileManager's error names no cause; mkdir(2)'s errno does.
            var reason = "try again"
            if mkdir(directory, 0o755) != 0 {
                reason = errno == EEXIST ? "a file of that name is in the way" : Posix.message(errno)
            } else {
                rmdir(directory)  // made now, after FileManager failed: leave nothing behind
            }
            throw CLIError(.ioError, "cannot create the directory \(directory): \(reason)")
        }
        let parts = [
            ("root", pki.root, pki.rootKey), ("intermediate", pki.intermediate, pki.intermediateKey),
            ("leaf", pki.leaf, pki.leafKey),
        ]
        for (name, certificate, key) in parts {
            try save(Data(certificate.derEncoded), to: "\(directory)/\(name).cer", mode: 0o644)
            try save(Data(certificate.pemEncoded.utf8), to: "\(directory)/\(name).pem", mode: 0o644)
            try save(Data(key.pemEncoded.utf8), to: "\(directory)/\(name).key", mode: 0o600)
        }
    }

    /// Writes `data` to a new file beside `path` and renames it into place once complete. The
    /// file is created private (`mkstemp` makes it 0600) and only then given `mode`, so a key is
    /// never readable by others, not even while it is being written.
    private static func save(_ data: Data, to path: String, mode: mode_t) throws {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var template = Array("\(directory.isEmpty ? "." : directory)/.testkit-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw CLIError(.ioError, "cannot write \(path): \(Posix.message(errno))") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure = data.withUnsafeBytes { Posix.writeAll($0, to: descriptor) }
        if failure == nil, fchmod(descriptor, mode) != 0 || fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw CLIError(.ioError, "cannot write \(path): \(Posix.message(failure))")
        }
    }

    /// A signer from the leaf key and chain in `directory`.
    static func signer(from directory: String) throws -> JWSSigner {
        func certificate(_ name: String) throws -> Certificate {
            let path = "\(directory)/\(name).cer"
            do {
                return try Certificate(derEncoded: try FileInput.read(path, limit: 1 << 16))
            } catch let error as CLIError {
                throw CLIError(
                    error.status, error.message,
                    hint: "create the files with 'tipledger testkit init --out \(directory)'")
            } catch {
                throw CLIError(.usage, "\(path) is not a DER certificate: \(error)")
            }
        }
        let chain = try names.reversed().map(certificate)
        let keyPath = "\(directory)/leaf.key"
        let keyText = String(decoding: try FileInput.read(keyPath, limit: 1 << 16), as: UTF8.self)
        do {
            return JWSSigner(key: try PrivateKey(pemEncoded: keyText), chain: chain)
        } catch {
            throw CLIError(.usage, "\(keyPath) is not a PEM private key: \(error)")
        }
    }
}
