// The operator's requisites the document tests save (PUT /api/admin/requisites): one company, a file varying
// only what its test is about (the VAT line, the names at the signature lines).

export const OPERATOR_REQUISITES = {
  companyName: 'ООО «Кондуит»',
  inn: '7701234567',
  kpp: '770101001',
  ogrn: '1027700132195',
  address: '123112, г. Москва, Пресненская наб., д. 10',
  bankName: 'АО «Тестбанк»',
  bik: '044525225',
  account: '40702810400000012345',
  correspondentAccount: '30101810400000000225',
  vatNote: 'Без НДС (УСН)',
};
