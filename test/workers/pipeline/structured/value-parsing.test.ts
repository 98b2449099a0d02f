import { expect } from 'chai';
import { toIsoDate, toIsoDuration } from '../../../../workers/pipeline/structured/date-normalization.js';
import { findPrices, parseDecimal, parsePrice } from '../../../../workers/pipeline/structured/price-parsing.js';

describe('structured/value parsing', () => {
  it('reads numbers in US, European, Swiss and spaced grouping', () => {
    const cases: Array<[string, number]> = [
      ['$1,299.99', 1299.99],
      ['1.299,99 €', 1299.99],
      ['1 299,99', 1299.99],
      ["CHF 1'250.00", 1250],
      ['12,50', 12.5],
      ['1,299', 1299],
      ['1.299.000', 1299000],
      ['-3.5', -3.5],
    ];
    for (const [text, value] of cases) expect(parseDecimal(text), text).to.equal(value);
    expect(parseDecimal('no digits')).to.equal(null);
  });

  it('reads the currency next to a price, before or after it', () => {
    expect(parsePrice('$1,299.99')).to.deep.equal({ amount: 1299.99, currency: 'USD' });
    expect(parsePrice('1.299,99 €')).to.deep.equal({ amount: 1299.99, currency: 'EUR' });
    expect(parsePrice('Price: 49.00 GBP')).to.deep.equal({ amount: 49, currency: 'GBP' });
    expect(parsePrice('12 500 Kč')).to.deep.equal({ amount: 12500, currency: 'CZK' });
    expect(parsePrice('39.95')).to.deep.equal({ amount: 39.95, currency: null });
  });

  it('finds every marked amount in running text, in order', () => {
    expect(findPrices('Was $30.00, now $24.99 for 2 items').map((p) => p.amount)).to.deep.equal([30, 24.99]);
  });

  it('turns common date formats into ISO 8601', () => {
    const cases: Array<[string, string | null]> = [
      ['2024-03-05', '2024-03-05'],
      ['2024-03-05T10:30:00+0100', '2024-03-05T10:30:00+01:00'],
      ['2024/3/5', '2024-03-05'],
      ['05.03.2024', '2024-03-05'],
      ['03/05/2024', '2024-03-05'],
      ['25/12/2023', '2023-12-25'],
      ['March 5, 2024', '2024-03-05'],
      ['Tuesday, March 5, 2024 at 7:30 pm', '2024-03-05T19:30:00'],
      ['5 March 2024', '2024-03-05'],
      ['5. März 2024', '2024-03-05'],
      ['12 de marzo de 2024', '2024-03-12'],
      ['Tue, 05 Mar 2024 10:00:00 GMT', '2024-03-05T10:00:00'],
      ['2024-02-30', null],
      ['soon', null],
    ];
    for (const [text, iso] of cases) expect(toIsoDate(text), text).to.equal(iso);
  });

  it('turns ISO and written durations into compact ISO 8601 durations', () => {
    const cases: Array<[string, string | null]> = [
      ['PT0H25M', 'PT25M'],
      ['P0DT1H', 'PT1H'],
      ['1 hour 30 minutes', 'PT1H30M'],
      ['90 min', 'PT1H30M'],
      ['1h30', 'PT1H30M'],
      ['1 Std. 20 Min.', 'PT1H20M'],
      ['none', null],
    ];
    for (const [text, iso] of cases) expect(toIsoDuration(text), text).to.equal(iso);
  });
});
