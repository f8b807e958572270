// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// What libmicrohttpd tells of one connection and its current request, read inside a callback
/// and never kept beyond it.
struct MHDConnection {
    let pointer: OpaquePointer

    /// A key and value as libmicrohttpd holds them: in the connection's memory pool, valid
    /// while the request is handled.
    struct Pair {
        let key: UnsafePointer<CChar>?
        let keyLength: Int
        let value: UnsafePointer<CChar>?
        let valueLength: Int

        var keyText: String { MHDConnection.text(key, keyLength) }
        var valueText: String { MHDConnection.text(value, valueLength) }
    }

    /// The key/value pairs of one kind (headers, query arguments) in the order received,
    /// already percent-decoded by libmicrohttpd for query arguments.
    func pairs(_ kind: MHD_ValueKind) -> [Pair] {
        var pairs: [Pair] = []
        // The iterator runs synchronously inside MHD_get_connection_values_n, so the pointer to
        // `pairs` it receives is valid for every call.
        withUnsafeMutablePointer(to: &pairs) { pairsPointer in
            _ = MHD_get_connection_values_n(
                pointer, kind,
                { cls, _, key, keyLength, value, valueLength in
                    guard let pairs = cls?.assumingMemoryBound(to: [Pair].self) else { return .NO }
                    pairs.pointee.append(Pair(key: key, keyLength: keyLength, value: value, valueLength: valueLength))
                    return .YES
                }, pairsPointer)
        }
        return pairs
    }

    /// The request's header section as libmicrohttpd left it in its read buffer, from the
    /// method (where the request line starts) for `MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`
    /// bytes, with the request line's parts (`url` is where the target starts) and the header
    /// `fields` located in it. A NULL pointer (libmicrohttpd gives none here) is placed before
    /// the section, which `requestLineIsClean` and `hidesNothing` refuse.
    func headerSection(
        method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        targetBytesAllowed: Int, fields: [Pair]
    ) -> ParsedHeaderSection {
        guard let method, let version else {
            return ParsedHeaderSection(
                bytes: UnsafeRawBufferPointer(start: nil, count: 0),
                requestLine: .init(methodEnd: -1, targetStart: -1, versionStart: -1, end: -1),
                targetBytesAllowed: targetBytesAllowed, fields: [])
        }
        let start = UnsafeRawPointer(method)
        func offset(_ pointer: UnsafePointer<CChar>?) -> Int {
            pointer.map { start.distance(to: UnsafeRawPointer($0)) } ?? -1
        }
        return ParsedHeaderSection(
            bytes: UnsafeRawBufferPointer(start: start, count: tl_mhd_request_header_size(pointer)),
            requestLine: .init(
                methodEnd: strlen(method), targetStart: offset(url), versionStart: offset(version),
                end: offset(version) + strlen(version)),
            targetBytesAllowed: targetBytesAllowed,
            fields: fields.map { field in
                let (name, value) = (offset(field.key), offset(field.value))
                return ParsedHeaderSection.Field(
                    name: name..<(name + field.keyLength), value: value..<(value + field.valueLength))
            })
    }

    /// The client's IP address as text, without the port; empty if libmicrohttpd has none.
    var remoteAddress: String {
        // Points into the connection, valid while it is open: read here, not kept.
        guard let address = tl_mhd_client_address(pointer) else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>?
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafePointer(to: ipv4.pointee.sin_addr) {
                    inet_ntop(AF_INET, $0, &buffer, socklen_t(buffer.count))
                }
            }
        case AF_INET6:
            written = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafePointer(to: ipv6.pointee.sin6_addr) {
                    inet_ntop(AF_INET6, $0, &buffer, socklen_t(buffer.count))
                }
            }
        default:
            written = nil
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes at `pointer` as UTF-8 text (invalid sequences replaced); empty for NULL.
    static func text(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }
}
