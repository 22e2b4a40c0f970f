-- ULID functions: time, text form, range bounds, generation, UUIDv7.
--
-- A ULID is 128 bits, big-endian: 48-bit Unix milliseconds, then 80 bits of
-- entropy. It is stored as uuid (domain pgid.ulid), whose comparison is
-- memcmp, so ORDER BY and range predicates on the uuid follow time.
--
-- A ULID in the UUIDv7 layout (Go ulidtype.LayoutV7, the default of
-- ulidtype.New) is also an RFC 9562 UUIDv7: 48-bit Unix milliseconds,
-- version 7 (the top 4 bits of byte 6), variant 10 (the top 2 bits of
-- byte 8) and 74 random bits. PostgreSQL 18's uuidv7() makes the same layout
-- (its 12 rand_a bits are a sub-millisecond fraction) and its
-- uuid_extract_timestamp / uuid_extract_version read it; pgid.ulid_time
-- reads the same 48 bits on every version. On PostgreSQL 18, DEFAULT
-- uuidv7() suits a pgid.ulid column as well; on 14 to 17 there is no
-- uuidv7() (SQLSTATE 42883), and pgid.gen_ulid_v7 works on all of them.
--
-- Every function but ulid_from_text has an SQL-standard body (RETURN ...):
-- PostgreSQL binds each name and operator in it when the function is
-- created, under the search_path set below, so the caller's search_path
-- plays no part, and the planner still inlines it like a quoted SQL body.
-- Pure functions are IMMUTABLE STRICT PARALLEL SAFE and their bodies strict,
-- so pgid.ulid_min_at(...) is inlined and folded to a constant (or evaluated
-- once per execution in a generic plan) and the primary key index answers
-- "id >= lo AND id < hi".
--
-- The text conversions work on bytes with get_byte and table lookups, never
-- character by character in plpgsql: ~1 µs a value (see the README). Their
-- tables and bit arithmetic are generated from Go's ulidtype.Alphabet (go
-- generate ./migrations, between the GENERATED lines).

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid.ulid_time: the creation time of a ULID, exact to the millisecond.
-- Built from whole seconds and the remaining milliseconds so that no step
-- rounds through a float (exact up to the largest ULID, year 10889).
CREATE OR REPLACE FUNCTION pgid.ulid_time(id uuid) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN timezone('UTC', timestamp 'epoch'
  + (('x' || left(encode(uuid_send(id), 'hex'), 12))::bit(48)::int8 / 1000)::float8 * interval '1 second'
  + (('x' || left(encode(uuid_send(id), 'hex'), 12))::bit(48)::int8 % 1000)::float8 * interval '1 millisecond');

COMMENT ON FUNCTION pgid.ulid_time(uuid) IS
  'Creation time of a ULID: its first 48 bits as Unix milliseconds. Agrees with Go ulidtype.ULID.Time().';

-- pgid._crockford_pairs: 1024 pairs of Crockford base32 characters, the
-- pair for the 10-bit value v at bytes 2v+1 and 2v+2. An IMMUTABLE function
-- without arguments: the planner folds it into a constant.
CREATE OR REPLACE FUNCTION pgid._crockford_pairs() RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
-- BEGIN GENERATED crockford_pairs (go generate ./migrations)
RETURN (
  '000102030405060708090A0B0C0D0E0F0G0H0J0K0M0N0P0Q0R0S0T0V0W0X0Y0Z'
  '101112131415161718191A1B1C1D1E1F1G1H1J1K1M1N1P1Q1R1S1T1V1W1X1Y1Z'
  '202122232425262728292A2B2C2D2E2F2G2H2J2K2M2N2P2Q2R2S2T2V2W2X2Y2Z'
  '303132333435363738393A3B3C3D3E3F3G3H3J3K3M3N3P3Q3R3S3T3V3W3X3Y3Z'
  '404142434445464748494A4B4C4D4E4F4G4H4J4K4M4N4P4Q4R4S4T4V4W4X4Y4Z'
  '505152535455565758595A5B5C5D5E5F5G5H5J5K5M5N5P5Q5R5S5T5V5W5X5Y5Z'
  '606162636465666768696A6B6C6D6E6F6G6H6J6K6M6N6P6Q6R6S6T6V6W6X6Y6Z'
  '707172737475767778797A7B7C7D7E7F7G7H7J7K7M7N7P7Q7R7S7T7V7W7X7Y7Z'
  '808182838485868788898A8B8C8D8E8F8G8H8J8K8M8N8P8Q8R8S8T8V8W8X8Y8Z'
  '909192939495969798999A9B9C9D9E9F9G9H9J9K9M9N9P9Q9R9S9T9V9W9X9Y9Z'
  'A0A1A2A3A4A5A6A7A8A9AAABACADAEAFAGAHAJAKAMANAPAQARASATAVAWAXAYAZ'
  'B0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFBGBHBJBKBMBNBPBQBRBSBTBVBWBXBYBZ'
  'C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFCGCHCJCKCMCNCPCQCRCSCTCVCWCXCYCZ'
  'D0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFDGDHDJDKDMDNDPDQDRDSDTDVDWDXDYDZ'
  'E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFEGEHEJEKEMENEPEQERESETEVEWEXEYEZ'
  'F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFFFGFHFJFKFMFNFPFQFRFSFTFVFWFXFYFZ'
  'G0G1G2G3G4G5G6G7G8G9GAGBGCGDGEGFGGGHGJGKGMGNGPGQGRGSGTGVGWGXGYGZ'
  'H0H1H2H3H4H5H6H7H8H9HAHBHCHDHEHFHGHHHJHKHMHNHPHQHRHSHTHVHWHXHYHZ'
  'J0J1J2J3J4J5J6J7J8J9JAJBJCJDJEJFJGJHJJJKJMJNJPJQJRJSJTJVJWJXJYJZ'
  'K0K1K2K3K4K5K6K7K8K9KAKBKCKDKEKFKGKHKJKKKMKNKPKQKRKSKTKVKWKXKYKZ'
  'M0M1M2M3M4M5M6M7M8M9MAMBMCMDMEMFMGMHMJMKMMMNMPMQMRMSMTMVMWMXMYMZ'
  'N0N1N2N3N4N5N6N7N8N9NANBNCNDNENFNGNHNJNKNMNNNPNQNRNSNTNVNWNXNYNZ'
  'P0P1P2P3P4P5P6P7P8P9PAPBPCPDPEPFPGPHPJPKPMPNPPPQPRPSPTPVPWPXPYPZ'
  'Q0Q1Q2Q3Q4Q5Q6Q7Q8Q9QAQBQCQDQEQFQGQHQJQKQMQNQPQQQRQSQTQVQWQXQYQZ'
  'R0R1R2R3R4R5R6R7R8R9RARBRCRDRERFRGRHRJRKRMRNRPRQRRRSRTRVRWRXRYRZ'
  'S0S1S2S3S4S5S6S7S8S9SASBSCSDSESFSGSHSJSKSMSNSPSQSRSSSTSVSWSXSYSZ'
  'T0T1T2T3T4T5T6T7T8T9TATBTCTDTETFTGTHTJTKTMTNTPTQTRTSTTTVTWTXTYTZ'
  'V0V1V2V3V4V5V6V7V8V9VAVBVCVDVEVFVGVHVJVKVMVNVPVQVRVSVTVVVWVXVYVZ'
  'W0W1W2W3W4W5W6W7W8W9WAWBWCWDWEWFWGWHWJWKWMWNWPWQWRWSWTWVWWWXWYWZ'
  'X0X1X2X3X4X5X6X7X8X9XAXBXCXDXEXFXGXHXJXKXMXNXPXQXRXSXTXVXWXXXYXZ'
  'Y0Y1Y2Y3Y4Y5Y6Y7Y8Y9YAYBYCYDYEYFYGYHYJYKYMYNYPYQYRYSYTYVYWYXYYYZ'
  'Z0Z1Z2Z3Z4Z5Z6Z7Z8Z9ZAZBZCZDZEZFZGZHZJZKZMZNZPZQZRZSZTZVZWZXZYZZ')::bytea;
-- END GENERATED crockford_pairs

COMMENT ON FUNCTION pgid._crockford_pairs() IS
  'Internal: the 1024 two-character Crockford base32 strings, in order, for pgid.ulid_to_text.';

-- pgid.ulid_to_text: the canonical 26-character Crockford base32 form, upper
-- case. 128 bits with two leading zero bits make 26 groups of 5 bits, read
-- here as 13 groups of 10 bits (each within two bytes of uuid_send(id)),
-- each looked up in pgid._crockford_pairs().
CREATE OR REPLACE FUNCTION pgid.ulid_to_text(id uuid) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
-- BEGIN GENERATED ulid_to_text (go generate ./migrations)
RETURN encode(
    substr(pgid._crockford_pairs(),
           2 * (get_byte(uuid_send(id), 0) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 1) << 8 | get_byte(uuid_send(id), 2)) >> 6) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 2) << 8 | get_byte(uuid_send(id), 3)) >> 4) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 3) << 8 | get_byte(uuid_send(id), 4)) >> 2) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * ((get_byte(uuid_send(id), 4) << 8 | get_byte(uuid_send(id), 5)) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 6) << 8 | get_byte(uuid_send(id), 7)) >> 6) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 7) << 8 | get_byte(uuid_send(id), 8)) >> 4) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 8) << 8 | get_byte(uuid_send(id), 9)) >> 2) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * ((get_byte(uuid_send(id), 9) << 8 | get_byte(uuid_send(id), 10)) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 11) << 8 | get_byte(uuid_send(id), 12)) >> 6) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 12) << 8 | get_byte(uuid_send(id), 13)) >> 4) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * (((get_byte(uuid_send(id), 13) << 8 | get_byte(uuid_send(id), 14)) >> 2) & 1023) + 1, 2)
    || substr(pgid._crockford_pairs(),
           2 * ((get_byte(uuid_send(id), 14) << 8 | get_byte(uuid_send(id), 15)) & 1023) + 1, 2),
    'escape');
-- END GENERATED ulid_to_text

COMMENT ON FUNCTION pgid.ulid_to_text(uuid) IS
  'Canonical ULID text: 26 characters of Crockford base32 (0123456789ABCDEFGHJKMNPQRSTVWXYZ), upper case. Agrees '
  'with Go ulidtype.ULID.String().';

-- pgid.ulid_from_text: parse the 26-character form, case-insensitively.
-- Rejects any other length, any character outside the Crockford alphabet
-- (I, L, O and U included) and a first character above '7' (the value would
-- not fit in 128 bits), each with SQLSTATE 22P02 and a message naming the
-- problem (pgid._parse_error). Lengths are in bytes and positions are 0-based
-- byte offsets of the UTF-8 text, as in Go's ulidtype.ParseError.
--
-- plpgsql, for its variables: b (the bytes) and t (Crockford value of each
-- byte, 32 outside the alphabet) are read 78 times. plpgsql parses its body
-- when first called, under the caller's search_path, so every name in it is
-- schema-qualified and every operator written OPERATOR(pg_catalog.x) with
-- operands of exactly its argument types; a SET search_path clause would
-- cost more than the conversion itself.
CREATE OR REPLACE FUNCTION pgid.ulid_from_text(s text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  b constant pg_catalog.bytea := pg_catalog.convert_to(s, 'UTF8');
  -- BEGIN GENERATED crockford_values (go generate ./migrations)
  t constant pg_catalog.bytea := E'\\x2020202020202020202020202020202020202020202020202020202020202020'
    '2020202020202020202020202020202000010203040506070809202020202020'
    '200a0b0c0d0e0f101120121320141520161718191a201b1c1d1e1f2020202020'
    '200a0b0c0d0e0f101120121320141520161718191a201b1c1d1e1f2020202020'
    '2020202020202020202020202020202020202020202020202020202020202020'
    '2020202020202020202020202020202020202020202020202020202020202020'
    '2020202020202020202020202020202020202020202020202020202020202020'
    '2020202020202020202020202020202020202020202020202020202020202020';
  -- END GENERATED crockford_values
BEGIN
  IF pg_catalog.octet_length(b) OPERATOR(pg_catalog.=) 26 THEN
    -- BEGIN GENERATED ulid_from_text (go generate ./migrations)
    IF ((pg_catalog.get_byte(t, pg_catalog.get_byte(b, 0)) OPERATOR(pg_catalog.<<) 2)
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 1))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 2))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 3))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 4))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 5))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 6))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 7))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 8))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 9))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 10))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 11))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 12))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 13))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 14))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 15))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 16))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 17))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 18))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 19))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 20))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 21))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 22))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 23))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 24))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 25))) OPERATOR(pg_catalog.<) 32 THEN
      RETURN pg_catalog.encode(
        pg_catalog.int8send(
            (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 0))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 61)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 1))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 56)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 2))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 51)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 3))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 46)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 4))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 41)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 5))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 36)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 6))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 31)
            OPERATOR(pg_catalog.|) ((pg_catalog.get_byte(t, pg_catalog.get_byte(b, 7)) OPERATOR(pg_catalog.<<) 26)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 8)) OPERATOR(pg_catalog.<<) 21)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 9)) OPERATOR(pg_catalog.<<) 16)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 10)) OPERATOR(pg_catalog.<<) 11)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 11)) OPERATOR(pg_catalog.<<) 6)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 12)) OPERATOR(pg_catalog.<<) 1)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 13))
                OPERATOR(pg_catalog.>>) 4))::pg_catalog.int8)
        OPERATOR(pg_catalog.||) pg_catalog.int8send(
            ((pg_catalog.get_byte(t, pg_catalog.get_byte(b, 13)) OPERATOR(pg_catalog.&) 15)::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 60)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 14))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 55)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 15))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 50)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 16))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 45)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 17))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 40)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 18))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 35)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 19))::pg_catalog.int8
                OPERATOR(pg_catalog.<<) 30)
            OPERATOR(pg_catalog.|) ((pg_catalog.get_byte(t, pg_catalog.get_byte(b, 20)) OPERATOR(pg_catalog.<<) 25)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 21)) OPERATOR(pg_catalog.<<) 20)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 22)) OPERATOR(pg_catalog.<<) 15)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 23)) OPERATOR(pg_catalog.<<) 10)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 24)) OPERATOR(pg_catalog.<<) 5)
            OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 25)))::pg_catalog.int8)
      , 'hex')::pg_catalog.uuid;
    -- END GENERATED ulid_from_text
    END IF;
  END IF;
  RETURN pgid._parse_error('ulid'::pg_catalog.text, s::pg_catalog.text)::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION pgid.ulid_from_text(text) IS
  'Parses the 26-character Crockford base32 ULID, case-insensitively. A length other than 26 bytes, a character '
  'outside the alphabet (I, L, O, U included) or a first character above 7 raise SQLSTATE 22P02. Agrees with Go '
  'ulidtype.Parse on that form.';

-- pgid.ulid_min_at / pgid.ulid_max_at: the smallest / largest ULID of the
-- millisecond of t (t truncated to the millisecond, clamped to the ULID time
-- range [1970-01-01, 2^48-1 ms]), like Go ulidtype.MinAt / MaxAt.
-- Half-open range for [t1, t2): id >= pgid.ulid_min_at(t1) AND id < pgid.ulid_min_at(t2).
-- The body is inlined by the planner: timezone('UTC', t) makes the epoch
-- extraction immutable (extract on timestamptz is only STABLE), and
-- numeric_larger/numeric_smaller are the strict forms of greatest/least (a
-- STRICT SQL function is only inlined if its body is strict too).
CREATE OR REPLACE FUNCTION pgid.ulid_min_at(t timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (lpad(to_hex(numeric_smaller(numeric_larger(floor(extract(epoch FROM timezone('UTC', t)) * 1000), 0),
                                    281474976710655)::int8), 12, '0')
        || '00000000000000000000')::uuid;

COMMENT ON FUNCTION pgid.ulid_min_at(timestamptz) IS
  'Smallest ULID of the millisecond of t: t in Unix ms (truncated, clamped to [0, 2^48-1]) then 80 zero bits. Range '
  '[t1, t2): id >= ulid_min_at(t1) AND id < ulid_min_at(t2). Agrees with Go ulidtype.MinAt.';

-- ulid_max_at is ulid_min_at with the 80 bits after the time set: its
-- first 13 characters (8 hex digits, '-', 4 hex digits) are the time.
CREATE OR REPLACE FUNCTION pgid.ulid_max_at(t timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (left(pgid.ulid_min_at(t)::text, 13) || '-ffff-ffff-ffffffffffff')::uuid;

COMMENT ON FUNCTION pgid.ulid_max_at(timestamptz) IS
  'Largest ULID of the millisecond of t: t in Unix ms (truncated, clamped to [0, 2^48-1]) then 80 one bits. Agrees '
  'with Go ulidtype.MaxAt.';

-- pgid.gen_ulid: a new ULID from clock_timestamp() and 80 random bits taken
-- from two gen_random_uuid() values (built in since PostgreSQL 13), skipping
-- their version and variant bits: hex digits 17..31 (60 bits) of one and
-- 0..4 (20 bits) of the other.
-- For DEFAULT clauses. Not monotonic: two values of the same millisecond, in
-- one backend or across backends, are ordered at random.
CREATE OR REPLACE FUNCTION pgid.gen_ulid() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN (lpad(to_hex(floor(extract(epoch FROM timezone('UTC', clock_timestamp())) * 1000)::int8), 12, '0')
        || substr(replace(gen_random_uuid()::text, '-', ''), 18, 15)
        || substr(replace(gen_random_uuid()::text, '-', ''), 1, 5))::uuid;

COMMENT ON FUNCTION pgid.gen_ulid() IS
  'New ULID: clock_timestamp() in ms and 80 random bits. Not monotonic within a millisecond, within or across '
  'backends; generate keys with Go ulidtype.New() where order matters and use this for DEFAULT clauses and ad-hoc '
  'SQL.';

-- pgid.gen_ulid_v7: a new ULID in the UUIDv7 layout, as PostgreSQL 18's
-- uuidv7() makes it (RFC 9562 method 3): 48-bit Unix milliseconds of
-- clock_timestamp(), version 7, 12 bits of sub-millisecond fraction
-- (rand_a: microseconds * 4.096, rounded), then variant 10 and 62 random
-- bits: the last 8 bytes of one gen_random_uuid() value, whose variant is
-- 10 already. The hex digits of milliseconds * 4096 + fraction get the
-- version digit inserted before their last 3 (overlay), then the random
-- tail of the uuid's text from its 20th character. Within a backend the
-- values strictly increase whenever clock_timestamp() has moved on by a
-- microsecond (it has microsecond resolution); across backends they are
-- ordered to the microsecond. For DEFAULT clauses.
--
-- On PostgreSQL 18 and later the DO block below replaces the body with
-- uuidv7() itself (strictly increasing within a backend, at nanosecond
-- resolution). Up installs the body that fits the server and installs it
-- again when it does not (a database moved to 18 by pg_upgrade or a
-- restore keeps the body of its old server): see functionsFit in
-- migrations.go.
CREATE OR REPLACE FUNCTION pgid.gen_ulid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN (pg_catalog.overlay(pg_catalog.lpad(pg_catalog.to_hex(
            (EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 4096000)::pg_catalog.int8), 15, '0'), '7', 13, 0)
        || pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 20))::pg_catalog.uuid;

DO $$
BEGIN
  IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
CREATE OR REPLACE FUNCTION pgid.gen_ulid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN pg_catalog.uuidv7();
  END IF;
END
$$;

COMMENT ON FUNCTION pgid.gen_ulid_v7() IS
  'New ULID that is also a UUIDv7 (version 7, variant 10), as uuidv7() of PostgreSQL 18 (which it calls there): '
  'clock_timestamp() in ms, a 12-bit sub-ms fraction, 62 random bits. Strictly increasing within a backend as the '
  'clock moves (per microsecond before 18); Go ulidtype.New() is strictly increasing within a process.';

-- pgid.ulid_is_v7: whether an ID is also a valid UUIDv7, like Go
-- ulidtype.ULID.IsV7; on every version, for example in a CHECK constraint
-- of a column that tools reading UUIDv7 rely on. Version * 4 + variant,
-- not "version = 7 AND variant = 2": AND is not strict, and the planner
-- inlines a STRICT SQL function only if its body is strict.
CREATE OR REPLACE FUNCTION pgid.ulid_is_v7(id uuid) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (get_byte(uuid_send(id), 6) >> 4) * 4 + (get_byte(uuid_send(id), 8) >> 6) = 7 * 4 + 2;

COMMENT ON FUNCTION pgid.ulid_is_v7(uuid) IS
  'Whether the ID is also a UUIDv7: version 7 and variant 10 (RFC 9562). True for every ULID of Go '
  'ulidtype.LayoutV7, pgid.gen_ulid_v7() and uuidv7(). Agrees with Go ulidtype.ULID.IsV7().';


---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.ulid_is_v7(uuid);
DROP FUNCTION IF EXISTS pgid.gen_ulid_v7();
DROP FUNCTION IF EXISTS pgid.gen_ulid();
DROP FUNCTION IF EXISTS pgid.ulid_max_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.ulid_min_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.ulid_from_text(text);
DROP FUNCTION IF EXISTS pgid.ulid_to_text(uuid);
DROP FUNCTION IF EXISTS pgid._crockford_pairs();
DROP FUNCTION IF EXISTS pgid.ulid_time(uuid);
