// The long connection's binary frames (protobuf `pbbp2.Frame`), as the Lark SDK encodes them.
import protobuf from 'protobufjs';

// SeqID/LogID are uint64 on the wire; uint32 reads and writes the same varints for the small values
// used here, and needs no Long support (the SDK switches it off in protobufjs, process-wide).
const PROTO = `
syntax = "proto2";
package pbbp2;
message Header { required string key = 1; required string value = 2; }
message Frame {
  required uint32 SeqID = 1; required uint32 LogID = 2; required int32 service = 3; required int32 method = 4;
  repeated Header headers = 5; optional string payloadEncoding = 6; optional string payloadType = 7;
  optional bytes payload = 8; optional string LogIDNew = 9;
}`;

const FrameType = protobuf.parse(PROTO).root.lookupType('pbbp2.Frame');

export interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  /** 0 control (ping/pong), 1 data (event). */
  method: number;
  headers: { key: string; value: string }[];
  payload?: Uint8Array;
}

export function encodeFrame(frame: Frame): Uint8Array {
  return FrameType.encode(FrameType.create(frame)).finish();
}

export function decodeFrame(data: Uint8Array): Frame {
  // No `defaults`/`longs` options: the SDK switches protobufjs's Long support off process-wide.
  const frame = FrameType.toObject(FrameType.decode(data)) as Partial<Frame>;
  return {
    SeqID: Number(frame.SeqID ?? 0),
    LogID: Number(frame.LogID ?? 0),
    service: frame.service ?? 0,
    method: frame.method ?? 0,
    headers: frame.headers ?? [],
    ...(frame.payload ? { payload: frame.payload } : {}),
  };
}

export function headerOf(frame: Frame, key: string): string | undefined {
  return frame.headers.find((h) => h.key === key)?.value;
}
