/**
 * What the webhook fan-out targets ask of the machine's CPU, from one run's
 * figures: on a machine of few cores the dispatcher, the database and the
 * receiver share the same cores, so the CPU a delivery costs all of them
 * together bounds the rate of any number of dispatcher processes.
 */

export interface CeilingInput {
  readonly cores: number
  /** Deliveries of the main phase, all enqueued by one transaction. */
  readonly deliveries: number
  /** CPU a delivery, us: the dispatcher's process, the database's backends, the receiver. */
  readonly dispatcherUs: number
  readonly postgresUs: number
  readonly receiverUs: number
  /** The plain sender's rate, requests/s, and its CPU a request (sender and receiver), us. */
  readonly baselinePerSecond: number
  readonly plainUs: number
  /** Targets: dispatcher/baseline ratio, enqueue-to-delivered p99 (ms), N processes over one. */
  readonly ratio: number
  readonly p99Ms: number
  readonly processesGain: number
}

export interface Ceiling {
  /** CPU a delivery across the machine, us. */
  readonly costUs: number
  /** The most deliveries/s the cores allow at that cost, whatever the number of processes. */
  readonly ceilingPerSecond: number
  /**
   * The rate one process must reach: the ratio's, or the p99's (deliveries
   * enqueued at one instant and sent at a steady rate: the 99th percentile is
   * delivered after 0.99 of them), whichever is higher.
   */
  readonly oneProcessPerSecond: number
  /** The rate N processes must then reach. */
  readonly manyPerSecond: number
  /** The CPU a delivery may cost for the cores to allow that rate, us. */
  readonly allowedUs: number
  /** Of which a plain POST to the same receiver already takes `plainUs`; what is left, us. */
  readonly leftUs: number
}

export const ceiling = (input: CeilingInput): Ceiling => {
  const costUs = input.dispatcherUs + input.postgresUs + input.receiverUs
  const byRatio = input.ratio * input.baselinePerSecond
  const byP99 = (0.99 * input.deliveries) / (input.p99Ms / 1000)
  const oneProcessPerSecond = Math.max(byRatio, byP99)
  const manyPerSecond = input.processesGain * oneProcessPerSecond
  const allowedUs = (input.cores * 1e6) / manyPerSecond
  return {
    costUs,
    ceilingPerSecond: (input.cores * 1e6) / costUs,
    oneProcessPerSecond,
    manyPerSecond,
    allowedUs,
    leftUs: allowedUs - input.plainUs
  }
}
